import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.js';

/**
 * Webhook signing secrets: generated here, stored encrypted (AES-256-GCM), decrypted only to
 * sign deliveries. The ciphertext format is `v1.<iv>.<tag>.<data>`, each part base64url.
 */

const KEY_BYTES = 32;
const IV_BYTES = 12;
const VERSION = 'v1';
export const WEBHOOK_KEY_FILE = 'webhook-secret.key';

/**
 * A new signing secret: `whsec_` + base64 of 32 CSPRNG bytes, the Standard Webhooks convention, so
 * their verifiers take it as it is.
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function encryptSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString('base64url'), tag.toString('base64url'), data.toString('base64url')].join('.');
}

/** Throws when the ciphertext is malformed, or was not made under `key` (GCM authentication). */
export function decryptSecret(key: Buffer, ciphertext: string): string {
  const [version, iv, tag, data, ...rest] = ciphertext.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || data === undefined || rest.length > 0) {
    throw new Error('Malformed webhook secret ciphertext');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * The key encrypting webhook secrets: WEBHOOK_SECRET_KEY when set; in embedded mode otherwise a
 * key generated once into `<dataDir>/webhook-secret.key` (mode 0600). With DATABASE_URL and no
 * WEBHOOK_SECRET_KEY nothing is derived: the secrets would be unreadable by other instances.
 */
export function loadWebhookKey(config: WebhookKeyConfig): Buffer {
  if (config.webhookSecretKey) return Buffer.from(config.webhookSecretKey, 'hex');
  if (config.databaseUrl) {
    throw new Error(
      'WEBHOOK_SECRET_KEY is required with DATABASE_URL to encrypt webhook secrets (64 hex characters, e.g. `openssl rand -hex 32`)',
    );
  }
  const file = path.join(config.dataDir, WEBHOOK_KEY_FILE);
  try {
    return parseKeyFile(readFileSync(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const hex = randomBytes(KEY_BYTES).toString('hex');
  try {
    // `wx`: when another process created it first, use theirs.
    writeFileSync(file, `${hex}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return parseKeyFile(readFileSync(file, 'utf8'), file);
  }
  return Buffer.from(hex, 'hex');
}

function parseKeyFile(text: string, file: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`${file} must hold 64 hex characters (32 bytes)`);
  return Buffer.from(hex, 'hex');
}

export type WebhookKeyConfig = Pick<Config, 'webhookSecretKey' | 'databaseUrl' | 'dataDir'>;

const keys = new WeakMap<WebhookKeyConfig, Buffer>();

/** loadWebhookKey, once per config object: loaded at first use (not at startup) and kept. */
export function webhookKey(config: WebhookKeyConfig): Buffer {
  let key = keys.get(config);
  if (!key) {
    key = loadWebhookKey(config);
    keys.set(config, key);
  }
  return key;
}
