import type { ActionSpec } from './actions.js';

/** The closed list of error codes. Extend it here; never answer with free text. */
export const ERROR_CODES = {
  validation_failed: 400,
  /** The resource's state does not allow the operation (e.g. completing a terminal payment session). */
  invalid_state: 400,
  /** The payment session is `success`, `failed` or `cancelled`: it cannot change. */
  session_terminal: 400,
  unauthorized: 401,
  forbidden: 403,
  policy_blocked: 403,
  not_found: 404,
  conflict: 409,
  /** The cart became an order: it cannot change. Recovery: create a new cart. */
  cart_checked_out: 409,
  /** A tracked product has less available than a line asks: `details[].field` names the line. */
  out_of_stock: 409,
  /** The order is paid (or paid and refunded): it takes no further payment session. */
  order_already_paid: 409,
  /** The invoice is paid, void or uncollectible: it takes no payment. */
  invoice_not_open: 409,
  /** The subscription's current period has not ended, or the next one is already billed. */
  subscription_not_due: 409,
  idempotency_in_flight: 409,
  /** The checkout session is completed or canceled: it cannot change. */
  checkout_session_closed: 409,
  /** The checkout session cannot be completed yet: its messages say what is missing. */
  checkout_not_ready: 409,
  /** The payment token is unknown, used, expired, over its allowance or for another session. */
  payment_token_invalid: 400,
  /** UCP: the platform profile URL (UCP-Agent `profile`) is missing, malformed or not allowed (https, public). */
  invalid_profile_url: 400,
  /** UCP: the platform profile could not be fetched (timeout, refused, non-2xx, redirect). */
  profile_unreachable: 424,
  /** UCP: the platform profile is not JSON or not a UCP profile. */
  profile_malformed: 422,
  /** UCP: the platform's protocol version is not one this business serves. */
  version_unsupported: 422,
  /** UCP: a signed request carries Signature-Input without Signature, or the other way round. */
  signature_missing: 401,
  /** UCP: the request's RFC 9421 signature does not verify, or does not cover what it must. */
  signature_invalid: 401,
  /** UCP: the signature's keyid is not in the platform profile's signing_keys. */
  key_not_found: 401,
  /** UCP: Content-Digest is not the digest of the request body. */
  digest_mismatch: 400,
  /** UCP: the signature's algorithm is not ES256 or ES384. */
  algorithm_unsupported: 400,
  payload_too_large: 413,
  /** The request's header block is over Node's limit (16 KiB); answered before any route. */
  headers_too_large: 431,
  unsupported_media_type: 415,
  idempotency_conflict: 422,
  rate_limited: 429,
  /** The payment session did not succeed (or was reversed): there is nothing to refund. */
  payment_not_refundable: 409,
  /** The refund asks for more than is left to refund on the payment (other refunds came first). */
  refund_exceeds_remaining: 409,
  /** The account has no credit in the invoice's currency to apply. */
  no_credit_available: 409,
  internal: 500,
  /** The tenant's billing system does not offer what the operation needs (the message names it). */
  capability_unavailable: 501,
  billing_unavailable: 502,
  quote_unavailable: 502,
  service_unavailable: 503,
  /** Every database connection stayed busy for the whole bounded wait: retry after Retry-After. */
  overloaded: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorDetail {
  /** Where the problem is: a body field (`name`), `query.since`, `header.authorization`... */
  field?: string;
  /** The rule that failed, e.g. `maxLength`, `format`, `required`. */
  rule?: string;
  /**
   * The MCP tool argument holding the value at fault, named exactly as the tool's input schema
   * names it (`id`, `since`, `body.items.0.quantity`, `idempotencyKey`); set on the error body.
   */
  argument?: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Seconds for a Retry-After header. */
    readonly retryAfter?: number,
    /** What an agent can do to recover (the error body's `nextActions`). */
    readonly recovery?: readonly ActionSpec[],
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_CODES[code];
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const validationFailed = (field: string, rule: string, message: string) =>
  new AppError('validation_failed', message, [{ field, rule, message }]);
