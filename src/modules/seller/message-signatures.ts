import { createHash } from 'node:crypto';
import { createSigner, httpbis } from 'http-message-signatures';
import { serializeDictionary } from 'structured-headers';
import { activeSigningKey, type SigningKeyDeps } from './signing-keys.js';

/** A request about to be sent: lower-case header names; the body as the exact bytes sent. */
export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** RFC 9421's name for ES256 (ECDSA over P-256 with SHA-256, the signature as raw r||s). */
export const SIGNATURE_ALGORITHM = 'ecdsa-p256-sha256';

/** `Content-Digest` (RFC 9530) of the body's bytes: `sha-256=:<base64>:`. */
export function contentDigest(body: string | Uint8Array): string {
  const digest = createHash('sha256').update(body).digest();
  return serializeDictionary({ 'sha-256': new Uint8Array(digest) });
}

/**
 * The components a request's signature covers, as UCP's REST binding lists them
 * (signatures.md, "REST Request Signing"): method, authority and path always; the query when
 * there is one; `ucp-agent` and `idempotency-key` when sent; `content-digest` and `content-type`
 * when there is a body.
 */
function coveredComponents(request: OutgoingRequest): string[] {
  const fields = ['@method', '@authority', '@path'];
  if (new URL(request.url).search !== '') fields.push('@query');
  for (const header of ['ucp-agent', 'idempotency-key']) if (header in request.headers) fields.push(header);
  if (request.body !== '') fields.push('content-digest', 'content-type');
  return fields;
}

/** Signs requests with one tenant's active seller key. */
export interface SellerRequestSigner {
  kid: string;
  /**
   * The request's headers with `Content-Digest` (when it has a body), `Signature-Input` and
   * `Signature` (label `sig1`, parameters `created` and `keyid`; no `alg`: UCP derives the
   * algorithm from the key) added.
   */
  sign(request: OutgoingRequest, at: Date): Promise<Record<string, string>>;
}

/**
 * An RFC 9421 HTTP message signer with the tenant's active signing key (created on first use),
 * as UCP asks of a business's webhooks (`keyid` = the key's `kid` in `signing_keys`).
 */
export async function sellerRequestSigner(
  deps: SigningKeyDeps,
  tenantId: string,
): Promise<SellerRequestSigner> {
  const key = await activeSigningKey(deps, tenantId);
  const signer = createSigner(key.privateKey, SIGNATURE_ALGORITHM, key.kid);
  return {
    kid: key.kid,
    async sign(request, at) {
      const headers = { ...request.headers };
      if (request.body !== '') headers['content-digest'] = contentDigest(request.body);
      const signed = await httpbis.signMessage(
        {
          key: signer,
          name: 'sig1',
          fields: coveredComponents({ ...request, headers }),
          params: ['created', 'keyid'],
          paramValues: { created: at, keyid: key.kid },
        },
        { method: request.method, url: request.url, headers },
      );
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(signed.headers))
        out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      return out;
    },
  };
}
