import type { ErrorCode } from '../core/errors.js';

/** An error body as the server sends it, without the request id (added when the example is built). */
export interface ErrorExampleBody {
  error: string;
  details?: { field?: string; rule?: string; argument?: string; message: string }[];
  retryAfterSeconds?: number;
}

/**
 * One example body per error code, in the words the server uses for it (the messages thrown in
 * `src/http`, `src/modules` and `src/billing`, with sample ids and values). Typed by the closed list, so a new
 * code cannot be added without its example. The OpenAPI document shows them as named examples on
 * the error responses of the code's status (`http/openapi-responses.ts`).
 */
export const ERROR_EXAMPLES: Record<ErrorCode, { summary: string; body: ErrorExampleBody }> = {
  validation_failed: {
    summary: 'A field breaks a rule',
    body: {
      error: 'Validation failed: currency must match pattern "^[A-Z]{3}$"',
      details: [
        {
          field: 'currency',
          rule: 'pattern',
          argument: 'currency',
          message: 'must match pattern "^[A-Z]{3}$"',
        },
      ],
    },
  },
  invalid_state: {
    summary: 'The resource’s state does not allow it',
    body: { error: 'The order is cancelled: it cannot be updated' },
  },
  session_terminal: {
    summary: 'The payment session has ended',
    body: {
      error: 'The payment session is already in a terminal status',
      details: [{ field: 'status', rule: 'terminal', message: 'success, failed and cancelled are terminal' }],
    },
  },
  payment_token_invalid: {
    summary: 'The payment token cannot be used',
    body: {
      error: 'The payment token has expired',
      details: [{ field: 'payment.token', rule: 'token', message: 'The payment token has expired' }],
    },
  },
  invalid_profile_url: {
    summary: 'The UCP-Agent profile URL is not allowed',
    body: { error: 'UCP-Agent profile must be an https URL on a public host' },
  },
  digest_mismatch: {
    summary: 'Content-Digest does not match the body',
    body: { error: 'Content-Digest is not the digest of the request body' },
  },
  algorithm_unsupported: {
    summary: 'Signature algorithm not accepted',
    body: { error: 'Signature algorithm must be ES256 or ES384' },
  },
  unauthorized: {
    summary: 'Missing, malformed, unknown or revoked API key',
    body: { error: 'Missing API key: send Authorization: Bearer <api key>' },
  },
  signature_missing: {
    summary: 'Half of a request signature',
    body: { error: 'Signature-Input was sent without Signature' },
  },
  signature_invalid: {
    summary: 'The request signature does not verify',
    body: { error: 'The request signature does not verify' },
  },
  key_not_found: {
    summary: 'Unknown signing key',
    body: { error: 'The signature keyid is not in the platform profile’s signing_keys' },
  },
  forbidden: {
    summary: 'The key lacks the scope',
    body: { error: 'This operation needs the "commerce" scope; the key has read' },
  },
  policy_blocked: {
    summary: 'A tenant policy blocks the operation',
    body: {
      error: 'Blocked by policy "Orders over 5,000 USD"',
      details: [
        {
          field: 'policy',
          rule: '3d9f6a2b-7c1e-4b8a-9e5d-0a1b2c3d4e5f',
          message: 'Orders over 5,000 USD blocks this operation',
        },
      ],
    },
  },
  not_found: {
    summary: 'Not in this tenant',
    body: { error: 'Order 0f9b8c1e-3c2a-4d7e-9a51-2b7f0c6d8e10 not found' },
  },
  conflict: {
    summary: 'Conflicts with the current state',
    body: {
      error: 'id pro-plan is already taken',
      details: [{ field: 'id', rule: 'unique', message: 'id pro-plan is already taken' }],
    },
  },
  cart_checked_out: {
    summary: 'The cart became an order',
    body: {
      error:
        'This cart is checked_out: an order was created from it and it can no longer change. Create a new cart.',
    },
  },
  out_of_stock: {
    summary: 'Less available than a line asks',
    body: {
      error: 'Not enough stock for sku-tee-m: 2 available, 3 asked',
      details: [{ field: 'items.0.quantity', rule: 'stock', message: '2 available, 3 asked' }],
    },
  },
  order_already_paid: {
    summary: 'The order is paid',
    body: {
      error: 'Order 0f9b8c1e-3c2a-4d7e-9a51-2b7f0c6d8e10 is paid: it takes no further payment session',
      details: [{ field: 'orderId', rule: 'unpaid', message: 'the order is paid in full' }],
    },
  },
  invoice_not_open: {
    summary: 'The invoice takes no payment',
    body: { error: 'Invoice in_8f2k1m0q9z7x6c5v4b3n is paid, not open: it takes no payment' },
  },
  subscription_not_due: {
    summary: 'The current period has not ended',
    body: {
      error:
        'The next period (2026-12-01T00:00:00.000Z to 2027-01-01T00:00:00.000Z) is already billed; the subscription moves into it at 2026-12-01T00:00:00.000Z',
    },
  },
  idempotency_in_flight: {
    summary: 'The same Idempotency-Key is still running',
    body: {
      error: 'A request with this Idempotency-Key is still being processed; retry shortly',
      retryAfterSeconds: 1,
    },
  },
  checkout_session_closed: {
    summary: 'The checkout session is closed',
    body: { error: 'The checkout session is completed: it cannot change. Create a new checkout session' },
  },
  checkout_not_ready: {
    summary: 'The checkout session is missing something',
    body: { error: 'The checkout session is not ready to complete: a shipping address is required' },
  },
  payment_not_refundable: {
    summary: 'Nothing to refund',
    body: { error: 'Payment session 5b1d2f7e-8a4c-4e0b-9d3f-6c2a1b0e9f87 paid no invoice' },
  },
  refund_exceeds_remaining: {
    summary: 'More than is left to refund',
    body: {
      error:
        'Payment session 5b1d2f7e-8a4c-4e0b-9d3f-6c2a1b0e9f87 has 2500 of 5000 USD left to refund; 3000 asked',
    },
  },
  no_credit_available: {
    summary: 'No credit in the invoice’s currency',
    body: { error: 'The account has no credit in USD to apply' },
  },
  payload_too_large: {
    summary: 'Body over the limit',
    body: { error: 'Request body is larger than the limit' },
  },
  unsupported_media_type: {
    summary: 'Not JSON',
    body: { error: 'Request bodies must be sent with Content-Type: application/json' },
  },
  idempotency_conflict: {
    summary: 'Idempotency-Key reused with another body',
    body: {
      error: 'This Idempotency-Key was used with a different request body; use a new key for a new request',
    },
  },
  profile_malformed: {
    summary: 'The platform profile is not a UCP profile',
    body: { error: 'The platform profile is not a UCP profile' },
  },
  version_unsupported: {
    summary: 'Protocol version not served',
    body: { error: 'The platform’s UCP version 2025-01-01 is not one this business serves' },
  },
  profile_unreachable: {
    summary: 'The platform profile could not be fetched',
    body: { error: 'The platform profile could not be fetched: timeout after 5000 ms' },
  },
  headers_too_large: {
    summary: 'Header block over 16 KiB',
    body: { error: 'The request headers are larger than the server accepts (16 KiB in all)' },
  },
  rate_limited: {
    summary: 'Over the key’s rate limit',
    body: {
      error: 'Rate limit of 60 requests per 60 seconds exceeded; retry after 12 s',
      retryAfterSeconds: 12,
    },
  },
  internal: {
    summary: 'Unexpected server error',
    body: { error: 'Internal server error' },
  },
  capability_unavailable: {
    summary: 'The billing system lacks the capability',
    body: { error: 'The tenant’s billing system does not support refunds' },
  },
  billing_unavailable: {
    summary: 'The billing system is down',
    body: { error: 'The billing system is unavailable; retry shortly', retryAfterSeconds: 5 },
  },
  quote_unavailable: {
    summary: 'The billing system could not quote',
    body: { error: 'The billing system could not quote: upstream timeout' },
  },
  service_unavailable: {
    summary: 'The database is unreachable',
    body: { error: 'The database is unreachable; retry shortly', retryAfterSeconds: 5 },
  },
  overloaded: {
    summary: 'Every database connection busy',
    body: {
      error: 'The service is busy: every database connection stayed in use for the whole wait; retry shortly',
      retryAfterSeconds: 1,
    },
  },
};

/**
 * The codes every route with that status can answer, whatever it documents: the gate, the body
 * parser, the idempotency layer and the error handler raise them (a route's own codes are read
 * off its description).
 */
export const GENERIC_CODES: Record<number, ErrorCode[]> = {
  400: ['validation_failed'],
  401: ['unauthorized'],
  403: ['forbidden'],
  404: ['not_found'],
  409: ['idempotency_in_flight'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  422: ['idempotency_conflict'],
  429: ['rate_limited'],
  500: ['internal'],
  501: ['capability_unavailable'],
  502: ['billing_unavailable'],
  503: ['service_unavailable', 'overloaded'],
};
