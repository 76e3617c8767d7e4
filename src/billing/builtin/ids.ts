import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `prefix` + 20 characters [0-9a-z] from a CSPRNG (rejection sampling, no modulo bias). */
export function builtinId(prefix: 'ba_' | 'in_' | 'bs_' | 'bp_' | 'pm_' | 're_'): string {
  let out = prefix;
  while (out.length < prefix.length + 20) {
    for (const byte of randomBytes(32)) {
      if (byte < 252 && out.length < prefix.length + 20) out += ALPHABET[byte % 36];
    }
  }
  return out;
}

export const ACCOUNT_ID = /^ba_[0-9a-z]{20}$/;
export const INVOICE_ID = /^in_[0-9a-z]{20}$/;
export const SUBSCRIPTION_ID = /^bs_[0-9a-z]{20}$/;

/** `YYYY-MM-DD` of a time, in UTC. */
export const isoDate = (at: Date) => at.toISOString().slice(0, 10);

export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return isoDate(d);
}
