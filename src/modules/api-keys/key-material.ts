import { createHash, randomBytes } from 'node:crypto';
import type { AppEnv } from '../../config.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 32;
const KEY_PATTERN = /^cak_(live|test)_[0-9A-Za-z]{32}$/;

export const keyPrefixFor = (env: AppEnv) => (env === 'production' ? 'cak_live_' : 'cak_test_');

/** 32 base62 characters from a CSPRNG (rejection sampling keeps them uniform), ~190 bits. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62]; // 248 = 4 * 62: no modulo bias
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateKey(env: AppEnv): string {
  return keyPrefixFor(env) + randomBase62(SECRET_LENGTH);
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The part safe to display and log: `cak_live_AbCd`. */
export function displayPrefix(key: string): string {
  return key.slice(0, 13);
}

/** The environment a well-formed key belongs to, or null when the string is not a key. */
export function parseKeyEnvironment(key: string): AppEnv | null {
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  return match[1] === 'live' ? 'production' : 'sandbox';
}
