import { Webhook } from 'standardwebhooks';

/** A verified delivery body (SPEC.md section 6). */
export interface WebhookEvent<T = unknown> {
  /** The event id, stable across retries: de-duplicate on it. */
  id?: string;
  event: string;
  timestamp: string;
  tenantId: string;
  data: T;
}

/** The Standard Webhooks library's own bound on a delivery's age and clock skew, in seconds. */
const LIBRARY_TOLERANCE_SECONDS = 5 * 60;

export interface VerifyWebhookOptions {
  /** The tenant the receiver belongs to: a delivery for any other tenant is refused. */
  tenantId: string;
  /**
   * How far the signed `webhook-timestamp` (the attempt's time) may be from now, in seconds
   * (default and most 300, the Standard Webhooks library's own bound). An older delivery is
   * refused as a replay.
   */
  toleranceSeconds?: number;
}

export type WebhookFailure =
  | 'missing_signature'
  | 'stale_timestamp'
  | 'bad_signature'
  | 'bad_body'
  | 'wrong_tenant';

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
  return Array.isArray(value) ? value.join(' ') : value;
}

/**
 * The Standard Webhooks key of a secret: its base64 part after `whsec_`, decoded as the server
 * signs with it (src/events/signing.ts). Node's decoder also reads the base64url of older secrets.
 */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** Throws unless the signed timestamp is within the tolerance of now. */
function checkTimestamp(timestamp: string, options: VerifyWebhookOptions): void {
  const tolerance = options.toleranceSeconds ?? LIBRARY_TOLERANCE_SECONDS;
  if (!(tolerance >= 0 && tolerance <= LIBRARY_TOLERANCE_SECONDS)) {
    throw new RangeError(`toleranceSeconds must be between 0 and ${LIBRARY_TOLERANCE_SECONDS}`);
  }
  const seconds = Number(timestamp);
  const now = Date.now() / 1000;
  if (!Number.isInteger(seconds) || Math.abs(now - seconds) > tolerance) {
    throw new WebhookVerificationError(
      'stale_timestamp',
      `webhook-timestamp ${timestamp} is more than ${tolerance} s from now: refused as a replay`,
    );
  }
}

/**
 * Verifies a webhook delivery and returns its parsed body, through the Standard Webhooks library
 * (`standardwebhooks`): the delivery's `webhook-signature` must be a `v1` HMAC-SHA256 of
 * `webhook-id.webhook-timestamp.body` under one of `secrets`, and `webhook-timestamp` (the time of
 * this attempt, inside the signature) within `toleranceSeconds` of now, so a captured delivery
 * sent again later is refused.
 *
 * - `rawBody` is the body exactly as received (verify BEFORE parsing: re-serialised JSON differs).
 * - During a secret rotation pass the current and the previous secret: the service signs with both.
 * - The body's `tenantId` must be `options.tenantId`.
 *
 * Our own `X-Webhook-Signature` (SPEC.md section 6) signs the body alone, with no timestamp, so it
 * cannot tell a replay: it is there for receivers without a Standard Webhooks library, and is not
 * what this function checks. Throws `WebhookVerificationError` (with a `reason`) otherwise.
 */
export function verifyWebhook<T = unknown>(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secrets: readonly string[],
  options: VerifyWebhookOptions,
): WebhookEvent<T> {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const signed = {
    'webhook-id': header(headers, 'webhook-id') ?? '',
    'webhook-timestamp': header(headers, 'webhook-timestamp') ?? '',
    'webhook-signature': header(headers, 'webhook-signature') ?? '',
  };
  if (!signed['webhook-id'] || !signed['webhook-timestamp'] || !signed['webhook-signature']) {
    throw new WebhookVerificationError(
      'missing_signature',
      'No webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks)',
    );
  }
  checkTimestamp(signed['webhook-timestamp'], options);
  let verified = false;
  for (const secret of secrets) {
    const key = keyOf(secret);
    if (key.length === 0) continue;
    try {
      new Webhook(key, { format: 'raw' }).verify(body, signed, { jsonParse: false });
      verified = true;
      break;
    } catch {
      // Not this secret (or the library's own clock check): try the next one.
    }
  }
  if (!verified) {
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
