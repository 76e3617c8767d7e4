import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { createVerifier, httpbis } from 'http-message-signatures';
import { parseDictionary } from 'structured-headers';
import { AppError } from '../../../core/errors.js';
import { contentDigest } from '../../seller/index.js';

// A platform's signed request (signatures.md, "REST Request Verification"). Signing is one of the
// ways a platform may authenticate (checkout-rest.md, "Message Signing": API keys, OAuth, mTLS or
// HTTP Message Signatures); our API key stays required, and a request that carries a signature
// must carry a valid one: RFC 9421 with a key of the platform profile's `signing_keys` named by
// `keyid`, covering the method, path and (with a body) `content-digest`, which must match the
// body's bytes (RFC 9530). Replays are the idempotency layer's business, as UCP says.

/** A platform's key as its profile publishes it (an EC JWK with its `kid`). */
export type PlatformSigningKey = JsonWebKey & { kid: string };

/** The parts of a received request a signature covers. */
export interface ReceivedRequest {
  method: string;
  /** Absolute: scheme and authority as the request arrived, then path and query. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body's text exactly as received ('' without one). */
  body: string;
}

/** RFC 9421 names of the algorithms UCP allows (ES256 required, ES384 optional), by JWK curve. */
const ALGORITHM_OF_CURVE: Record<string, string> = {
  'P-256': 'ecdsa-p256-sha256',
  'P-384': 'ecdsa-p384-sha384',
};
/** Clock skew allowed for a signature's `created` (it may not be later than now plus this). */
const CREATED_SKEW_MS = 60_000;

const refuse = (code: 'signature_missing' | 'signature_invalid' | 'key_not_found', message: string) =>
  new AppError(code, message);

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The one signature a request carries: its label, `keyid`, optional `alg` and covered components. */
function signatureInputOf(text: string) {
  let members: ReturnType<typeof parseDictionary>;
  try {
    members = parseDictionary(text);
  } catch {
    throw refuse('signature_invalid', 'Signature-Input is not an RFC 8941 dictionary');
  }
  const [first] = members.entries();
  if (!first || members.size !== 1 || !Array.isArray(first[1][0]))
    throw refuse('signature_invalid', 'Signature-Input must hold exactly one signature (an inner list)');
  const [label, [items, params]] = first as [string, [[unknown, unknown][], Map<string, unknown>]];
  const keyid = params.get('keyid');
  if (typeof keyid !== 'string' || keyid === '')
    throw refuse('signature_invalid', `Signature-Input ${label} has no keyid`);
  const alg = params.get('alg');
  const components = items.map(([name]) => String(name));
  return { label, keyid, alg: typeof alg === 'string' ? alg : undefined, components };
}

/** The verifying key for `kid`, and its algorithm; 401 key_not_found, 400 algorithm_unsupported. */
function keyFor(keys: readonly PlatformSigningKey[], kid: string, alg: string | undefined) {
  const jwk = keys.find((k) => k.kid === kid);
  if (!jwk) throw refuse('key_not_found', `No key kid=${kid} in the platform profile's signing_keys`);
  const algorithm = jwk.kty === 'EC' ? ALGORITHM_OF_CURVE[jwk.crv ?? ''] : undefined;
  if (!algorithm || (alg !== undefined && alg !== algorithm))
    throw new AppError(
      'algorithm_unsupported',
      `Key kid=${kid}: only ES256 (P-256) and ES384 (P-384) signatures are accepted${alg ? `, not ${alg}` : ''}`,
    );
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw refuse(
      'key_not_found',
      `Key kid=${kid} in the platform profile's signing_keys is not a usable EC key`,
    );
  }
  return { key, algorithm };
}

/**
 * Verifies the request's signature when it carries one (nothing to do without `Signature-Input`
 * and `Signature`). 401 signature_missing (one header without the other), signature_invalid,
 * key_not_found; 400 digest_mismatch, algorithm_unsupported.
 */
export async function verifyPlatformRequest(
  request: ReceivedRequest,
  keys: readonly PlatformSigningKey[],
  now: Date,
): Promise<void> {
  const input = headerText(request.headers['signature-input']);
  const signature = headerText(request.headers.signature);
  if (input === undefined && signature === undefined) return;
  if (input === undefined || signature === undefined)
    throw refuse('signature_missing', 'A signed request needs both Signature-Input and Signature');
  const parsed = signatureInputOf(input);
  const { key, algorithm } = keyFor(keys, parsed.keyid, parsed.alg);
  for (const required of ['@method', '@path', ...(request.body !== '' ? ['content-digest'] : [])])
    if (!parsed.components.includes(required))
      throw refuse('signature_invalid', `The signature must cover ${required}`);
  if (request.body !== '' && headerText(request.headers['content-digest']) !== contentDigest(request.body))
    throw new AppError('digest_mismatch', "Content-Digest is not the SHA-256 of the request body's bytes");
  let valid: boolean | null;
  try {
    valid = await httpbis.verifyMessage(
      {
        keyLookup: async () => ({
          id: parsed.keyid,
          algs: [algorithm],
          verify: createVerifier(key, algorithm),
        }),
        notAfter: new Date(now.getTime() + CREATED_SKEW_MS),
      },
      { method: request.method, url: request.url, headers: presentHeaders(request.headers) },
    );
  } catch (err) {
    throw refuse('signature_invalid', `The request signature is not valid: ${(err as Error).message}`);
  }
  if (valid !== true)
    throw refuse('signature_invalid', `The request signature does not verify with key kid=${parsed.keyid}`);
}

function presentHeaders(headers: ReceivedRequest['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}
