import { createHmac, timingSafeEqual } from 'node:crypto';

/** A verified delivery body (SPEC.md section 6). */
export interface WebhookEvent<T = unknown> {
  /** The event id, stable across retries: de-duplicate on it. */
  id?: string;
  event: string;
  timestamp: string;
  tenantId: string;
  data: T;
}

export interface VerifyWebhookOptions {
  /** The tenant the receiver belongs to: a delivery for any other tenant is refused. */
  tenantId: string;
}

export type WebhookFailure = 'missing_signature' | 'bad_signature' | 'bad_body' | 'wrong_tenant';

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * Verifies a webhook delivery (SPEC.md section 6) and returns its parsed body.
 *
 * - `rawBody` is the body exactly as received (verify BEFORE parsing: re-serialised JSON differs).
 * - `X-Webhook-Signature` holds one or more comma-separated `sha256=<hex HMAC-SHA256(secret, rawBody)>`;
 *   during a secret rotation there are two. The delivery is accepted when any of them matches any of
 *   `secrets` (pass the current and the previous secret while rotating). Comparisons are constant-time.
 * - The body's `tenantId` must be `options.tenantId`.
 *
 * Throws `WebhookVerificationError` (with a `reason`) otherwise.
 */
export function verifyWebhook<T = unknown>(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secrets: readonly string[],
  options: VerifyWebhookOptions,
): WebhookEvent<T> {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const signatureHeader = header(headers, 'x-webhook-signature');
  if (!signatureHeader)
    throw new WebhookVerificationError('missing_signature', 'No X-Webhook-Signature header');
  const received = signatureHeader
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('sha256='))
    .map((s) => Buffer.from(s.slice('sha256='.length), 'hex'));
  const expected = secrets
    .filter((s) => s.length > 0)
    .map((s) => createHmac('sha256', s).update(body).digest());
  let matched = false;
  // Every pair is compared (no early exit), each in constant time.
  for (const signature of received) {
    for (const digest of expected) {
      if (signature.length === digest.length && timingSafeEqual(signature, digest)) matched = true;
    }
  }
  if (!matched) {
    throw new WebhookVerificationError('bad_signature', 'No signature matches any of the given secrets');
  }
  let event: WebhookEvent<T>;
  try {
    event = JSON.parse(body.toString('utf8')) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError('bad_body', 'The body is not JSON');
  }
  if (!event || typeof event !== 'object' || typeof event.event !== 'string') {
    throw new WebhookVerificationError('bad_body', 'The body is not a webhook event');
  }
  if (event.tenantId !== options.tenantId) {
    throw new WebhookVerificationError('wrong_tenant', `The event is for tenant ${String(event.tenantId)}`);
  }
  return event;
}
