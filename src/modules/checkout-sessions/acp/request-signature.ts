import { createPublicKey, createVerify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { AppError } from '../../../core/errors.js';
import type { SellerProfile } from '../../seller/index.js';

// ACP request signing (rfc.agentic_checkout.md: the client SHOULD sign requests, `Signature`
// over canonical JSON with a `Timestamp`; the server SHOULD verify them within a bounded clock
// skew and publish what it accepts out of band). What we accept, published in docs and in the
// seller profile's `acpRequestKeys` description: ECDSA (ES256 on P-256, ES384 on P-384, raw
// r||s, base64url) by one of the keys the seller registered, over
// `<METHOD> <path>\n<Timestamp>\n<RFC 8785 canonical JSON of the body, empty without one>`.
// A seller with no keys takes unsigned requests (the API key authenticates them).

/** How far `Timestamp` may be from our clock, either way. */
export const ACP_SIGNATURE_SKEW_MS = 5 * 60_000;

const HASH_OF_CURVE = { 'P-256': 'sha256', 'P-384': 'sha384' } as const;

export interface AcpSignedRequest {
  method: string;
  /** The path and query as sent. */
  url: string;
  signature: string | undefined;
  timestamp: string | undefined;
  /** The body's text as received, if any. */
  body: string | undefined;
}

/** The bytes a platform signs. */
export function acpSigningInput(method: string, url: string, timestamp: string, body: string | undefined) {
  const canonical = body === undefined || body === '' ? '' : (canonicalize(JSON.parse(body)) ?? '');
  return `${method.toUpperCase()} ${url}\n${timestamp}\n${canonical}`;
}

const invalid = (message: string) => new AppError('signature_invalid', message);

/**
 * Verifies an ACP request against the seller's registered keys: nothing to do without keys;
 * 401 signature_missing without `Signature` or `Timestamp`, signature_invalid when `Timestamp` is
 * not RFC 3339 within the skew or no key verifies the signature.
 */
export function verifyAcpRequest(request: AcpSignedRequest, seller: SellerProfile, now: Date): void {
  const keys = seller.acpRequestKeys;
  if (keys.length === 0) return;
  const { signature, timestamp } = request;
  if (!signature || !timestamp)
    throw new AppError(
      'signature_missing',
      'This seller requires signed ACP requests: send Signature and Timestamp (docs/agentic-commerce.md)',
    );
  const at = Date.parse(timestamp);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(timestamp) || Number.isNaN(at))
    throw invalid('Timestamp must be an RFC 3339 date-time');
  if (Math.abs(at - now.getTime()) > ACP_SIGNATURE_SKEW_MS)
    throw invalid(
      `Timestamp ${timestamp} is more than 5 minutes from the server's clock (${now.toISOString()})`,
    );
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(signature)) throw invalid('Signature must be base64url');
  const input = acpSigningInput(request.method, request.url, timestamp, request.body);
  const bytes = Buffer.from(signature, 'base64url');
  const verifies = keys.some((jwk) => {
    try {
      const key = createPublicKey({ key: { ...jwk }, format: 'jwk' });
      return createVerify(HASH_OF_CURVE[jwk.crv])
        .update(input)
        .verify({ key, dsaEncoding: 'ieee-p1363' }, bytes);
    } catch {
      return false; // a signature of another length than the key's curve makes
    }
  });
  if (!verifies) throw invalid('The Signature does not verify with any of the seller’s ACP request keys');
}
