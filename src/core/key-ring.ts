import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Config, ConfigError } from '../config.js';

/**
 * Encryption at rest, in one place: every secret we keep (webhook signing secrets, the payment
 * provider's signing secret, responses stored for idempotent replay, the sellers' private signing
 * keys) is sealed here with
 * AES-256-GCM under a key of the ring. Each ciphertext names its key, so keys rotate: the first key
 * seals, every key opens, and `npm run cli -- encryption rotate` re-seals under the first.
 *
 * Format: `ek1.<key id>.<iv>.<tag>.<data>` (base64url parts). The purpose (`webhook_secret`,
 * `provider_secret`, `idempotent_response`, `signing_key`) and the key id are authenticated data, so a
 * ciphertext copied into another column does not open there. `v1.<iv>.<tag>.<data>` is the
 * format webhook secrets had before the ring, under the key now called `legacy`.
 */

const KEY_BYTES = 32;
const IV_BYTES = 12;
const PREFIX = 'ek1';
export const LEGACY_KEY_ID = 'legacy';
/** The embedded mode's generated key file, in the data directory unless APP_ENCRYPTION_KEY_FILE says otherwise. */
export const DEFAULT_KEY_FILE = 'encryption.keys';
/** Where the embedded mode kept the webhook key before the ring; read once into the ring as `legacy`. */
const LEGACY_WEBHOOK_KEY_FILE = 'webhook-secret.key';

export type SealPurpose = 'webhook_secret' | 'provider_secret' | 'idempotent_response' | 'signing_key';
/** What a MAC of the ring authenticates: each purpose has its own key derived from the ring's. */
export type MacPurpose = 'list_cursor' | 'card_fingerprint';

export interface RingKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export class KeyRing {
  private readonly byId: Map<string, Buffer>;
  private readonly macKeys = new Map<string, Buffer>();

  /** `keys[0]` seals; all of them open. */
  constructor(
    readonly keys: readonly RingKey[],
    /** Where the keys came from, for the start-up log (a file path, or the variable's name). */
    readonly source: string,
    /** True when this start generated the key file (`source`). */
    readonly created = false,
  ) {
    if (keys.length === 0) throw new Error('A key ring needs at least one key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  get currentId(): string {
    return (this.keys[0] as RingKey).id;
  }

  seal(purpose: SealPurpose, plaintext: string): string {
    const { id, key } = this.keys[0] as RingKey;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(`${purpose}:${id}`));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      PREFIX,
      id,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      data.toString('base64url'),
    ].join('.');
  }

  /** Throws when the ciphertext is malformed, names a key the ring lacks, or does not authenticate. */
  open(purpose: SealPurpose, ciphertext: string): string {
    const parts = ciphertext.split('.');
    if (parts[0] === 'v1' && parts.length === 4) {
      const [, iv, tag, data] = parts as [string, string, string, string];
      return decrypt(this.key(LEGACY_KEY_ID, 'legacy-format ciphertext'), iv, tag, data);
    }
    if (parts.length !== 5 || parts[0] !== PREFIX || !parts[1]) throw new Error('Malformed ciphertext');
    const [, id, iv, tag, data] = parts as [string, string, string, string, string];
    return decrypt(this.key(id, 'ciphertext'), iv, tag, data, `${purpose}:${id}`);
  }

  /**
   * `<key id>.<HMAC-SHA256, base64url>` of `data` under the current key: what we hand out and
   * must recognise when it comes back (list cursors), without keeping it.
   */
  mac(purpose: MacPurpose, data: string): string {
    const id = this.currentId;
    return `${id}.${this.hmac(id, purpose, data).toString('base64url')}`;
  }

  /** Whether `signature` is `mac(purpose, data)` under any key of the ring (constant-time compare). */
  verifyMac(purpose: MacPurpose, data: string, signature: string): boolean {
    const dot = signature.indexOf('.');
    const id = signature.slice(0, dot);
    if (dot < 0 || !this.byId.has(id)) return false;
    const given = Buffer.from(signature.slice(dot + 1), 'base64url');
    const expected = this.hmac(id, purpose, data);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** HMAC under the key of `purpose` derived from ring key `id` (the encryption key itself never MACs). */
  private hmac(id: string, purpose: MacPurpose, data: string): Buffer {
    const name = `${id}:${purpose}`;
    let key = this.macKeys.get(name);
    if (!key) {
      key = createHmac('sha256', this.key(id, 'MAC')).update(`mac:${purpose}`).digest();
      this.macKeys.set(name, key);
    }
    return createHmac('sha256', key).update(data).digest();
  }

  private key(id: string, what: string): Buffer {
    const key = this.byId.get(id);
    if (!key) throw new Error(`A ${what} sealed under key "${id}", which is not in the key ring`);
    return key;
  }

  /** Whether `ciphertext` is sealed by this ring's current key (else `rotate` re-seals it). */
  isCurrent(ciphertext: string): boolean {
    return ciphertext.startsWith(`${PREFIX}.${this.currentId}.`);
  }
}

/** AES-256-GCM of base64url parts; `aad` is the authenticated data (none in the legacy format). */
function decrypt(key: Buffer, iv: string, tag: string, data: string, aad?: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/** Whether a stored value is a ciphertext of the ring (either format), not a value kept in clear. */
export const isSealed = (value: string) =>
  value.startsWith(`${PREFIX}.`) || /^v1\.[^.]*\.[^.]*\.[^.]*$/.test(value);

export type KeyRingConfig = Pick<
  Config,
  'encryptionKeys' | 'encryptionKeyFile' | 'webhookSecretKey' | 'databaseUrl' | 'dataDir'
>;

/** `id:hex` entries, one per line or comma-separated; the first seals. */
export function parseKeyList(text: string, source: string): RingKey[] {
  const entries = text
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .flatMap((line) => line.split(','))
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  const keys = entries.map((entry) => {
    const [id, hex, ...rest] = entry.split(':');
    if (!id || !KEY_ID.test(id) || !hex || rest.length || !/^[0-9a-fA-F]{64}$/.test(hex))
      throw new ConfigError(
        source,
        'must hold `id:key` entries: an id of 1-32 [A-Za-z0-9_-] and 64 hex characters',
      );
    return { id, key: Buffer.from(hex, 'hex') };
  });
  if (keys.length === 0) throw new ConfigError(source, 'holds no key');
  if (new Set(keys.map((k) => k.id)).size !== keys.length)
    throw new ConfigError(source, 'names a key id twice');
  return keys;
}

const newKeyId = (now: Date) => `k${now.toISOString().slice(0, 10).replaceAll('-', '')}`;

function readKeyFile(file: string): RingKey[] | null {
  try {
    return parseKeyList(readFileSync(file, 'utf8'), `APP_ENCRYPTION_KEY_FILE (${file})`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function readLegacyWebhookKey(dataDir: string): RingKey | null {
  try {
    const hex = readFileSync(path.join(dataDir, LEGACY_WEBHOOK_KEY_FILE), 'utf8').trim();
    return /^[0-9a-fA-F]{64}$/.test(hex) ? { id: LEGACY_KEY_ID, key: Buffer.from(hex, 'hex') } : null;
  } catch {
    return null;
  }
}

/** Creates the key file with one new key (and the pre-ring webhook key, if any), mode 0600. */
function createKeyFile(file: string, dataDir: string): { keys: RingKey[]; created: boolean } {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const fresh = { id: newKeyId(new Date()), key: randomBytes(KEY_BYTES) };
  const legacy = readLegacyWebhookKey(dataDir);
  const keys = legacy ? [fresh, legacy] : [fresh];
  const text = `# Encryption keys of the Commerce Agent API: id:key, the first seals. Keep this file safe and private.\n${keys
    .map((k) => `${k.id}:${k.key.toString('hex')}`)
    .join('\n')}\n`;
  try {
    // `wx`: when another process created it first, use theirs.
    writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { keys: readKeyFile(file) ?? keys, created: false };
  }
  chmodSync(file, 0o600); // whatever the umask
  return { keys, created: true };
}

/**
 * The key ring of this deployment:
 * - `APP_ENCRYPTION_KEYS` (`id:hex,...`, the first seals), or the file `APP_ENCRYPTION_KEY_FILE`
 *   names (the same entries, one per line);
 * - else `WEBHOOK_SECRET_KEY`, the single key of earlier releases, as the key `legacy`;
 * - else, embedded only: `<DATA_DIR>/encryption.keys` (or APP_ENCRYPTION_KEY_FILE), generated
 *   once with mode 0600.
 * With DATABASE_URL and none of these there is no key every instance shares: ConfigError.
 */
export function loadKeyRing(config: KeyRingConfig): KeyRing {
  const legacy = config.webhookSecretKey
    ? [{ id: LEGACY_KEY_ID, key: Buffer.from(config.webhookSecretKey, 'hex') }]
    : [];
  const withLegacy = (keys: RingKey[]) =>
    keys.some((k) => k.id === LEGACY_KEY_ID) ? keys : [...keys, ...legacy];
  if (config.encryptionKeys)
    return new KeyRing(
      withLegacy(parseKeyList(config.encryptionKeys, 'APP_ENCRYPTION_KEYS')),
      'APP_ENCRYPTION_KEYS',
    );
  if (config.encryptionKeyFile) {
    const keys = readKeyFile(config.encryptionKeyFile);
    if (keys) return new KeyRing(withLegacy(keys), config.encryptionKeyFile);
  }
  if (legacy.length > 0) return new KeyRing(legacy, 'WEBHOOK_SECRET_KEY');
  if (config.databaseUrl)
    throw new ConfigError(
      'APP_ENCRYPTION_KEYS',
      'is required with DATABASE_URL: the key that encrypts secrets at rest, shared by every instance (e.g. `k1:$(openssl rand -hex 32)`)',
    );
  const file = config.encryptionKeyFile ?? path.join(config.dataDir, DEFAULT_KEY_FILE);
  const { keys, created } = createKeyFile(file, config.dataDir);
  return new KeyRing(keys, file, created);
}
