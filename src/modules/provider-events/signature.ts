import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Name of the header a provider signs its events with (Stripe's scheme under our name). */
export const SIGNATURE_HEADER = 'provider-signature';
/** An event signed longer ago (or further ahead) than this is refused: a captured request cannot be replayed later. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

const HEX = '0123456789abcdef';

/** `pe_` + 32 lowercase hex characters from a CSPRNG (128 bits): the endpoint id names the tenant. */
export function newEndpointId(): string {
  return `pe_${randomBytes(16).toString('hex')}`;
}

/** `whsec_` + 32 random bytes, base64url. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** `evt_` + 24 random hex characters: the sandbox provider's event ids. */
export function newEventId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}

/** Hex HMAC-SHA256 of `<t>.<raw body>` keyed by the secret (the bytes of the secret string, prefix included). */
export function computeSignature(secret: string, timestamp: number, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The header value a provider sends: `t=<unix seconds>,v1=<hex signature>`. */
export function signatureHeader(secret: string, timestamp: number, rawBody: Buffer | string): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, rawBody)}`;
}

export interface ParsedSignature {
  timestamp: number;
  /** Every `v1` value: a provider may send several while it rotates secrets. */
  signatures: string[];
}

const isHexDigest = (value: string) =>
  value.length === 64 && [...value].every((c) => HEX.includes(c.toLowerCase()));

/** Parses `t=...,v1=...[,v1=...]`; null when malformed (no timestamp, no well-formed v1). */
export function parseSignatureHeader(header: string): ParsedSignature | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1' && isHexDigest(value)) {
      signatures.push(value.toLowerCase());
    }
    // Other schemes (v0, future versions) are ignored, as Stripe's verifiers do.
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

export type VerifyFailure = 'missing' | 'malformed' | 'timestamp' | 'mismatch';

/**
 * Verifies a provider signature over the raw body. The digest comparison is constant-time; the
 * timestamp must be within TIMESTAMP_TOLERANCE_SECONDS of `now` either way.
 */
export function verifySignature(
  secret: string,
  header: string | undefined,
  rawBody: Buffer,
  now: Date,
): { ok: true; timestamp: number } | { ok: false; reason: VerifyFailure } {
  if (header === undefined || header === '') return { ok: false, reason: 'missing' };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (Math.abs(nowSeconds - parsed.timestamp) > TIMESTAMP_TOLERANCE_SECONDS) {
    return { ok: false, reason: 'timestamp' };
  }
  const expected = Buffer.from(computeSignature(secret, parsed.timestamp, rawBody), 'hex');
  // Every candidate is compared (no early exit), each in constant time; all are 32 bytes.
  let matched = false;
  for (const candidate of parsed.signatures) {
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'mismatch' };
}
