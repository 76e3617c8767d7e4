import type { AppError, ErrorCode, ErrorDetail } from '../../../core/errors.js';
import type { CheckoutMessage, CheckoutSession, MessageTarget } from '../model.js';
import { UCP_VERSION } from './protocol.js';
import type { SEVERITIES } from './schemas/common.js';

// Messages as UCP writes them: the model's message targets become RFC 9535 JSONPaths into the
// checkout as we present it; our errors become UCP's error response with its HTTP status.

type Severity = (typeof SEVERITIES)[number];

export type UcpMessage =
  | { type: 'error'; code: string; path?: string; content: string; severity: Severity }
  | { type: 'warning'; code: string; path?: string; content: string }
  | { type: 'info'; code?: string; path?: string; content: string };

const ADDRESS_FIELDS = {
  country: 'address_country',
  postalCode: 'postal_code',
  line1: 'street_address',
  city: 'address_locality',
} as const;

const SHIPPING = '$.fulfillment.methods[0]';

/** The index in our `line_items` of the requested item at `index` (lines hold only what can be bought). */
function lineIndexOf(session: CheckoutSession, index: number): number {
  const productId = session.items[index]?.productId;
  const line = session.lines.findIndex((l) => l.productId === productId);
  return line >= 0 ? line : index;
}

/** Where a message points, as a JSONPath into the checkout we answer (or, for an item we could not price, the request's). */
export function pathOf(target: MessageTarget, session: CheckoutSession): string {
  switch (target.kind) {
    case 'item': {
      const base = `$.line_items[${lineIndexOf(session, target.index)}]`;
      if (target.field === 'quantity') return `${base}.quantity`;
      return target.field === 'id' ? `${base}.item.id` : base;
    }
    case 'address':
      if (!target.field)
        return session.address ? `${SHIPPING}.destinations[0]` : `${SHIPPING}.selected_destination_id`;
      return `${SHIPPING}.destinations[0].${ADDRESS_FIELDS[target.field]}`;
    case 'buyer':
      return target.field ? `$.buyer.${target.field}` : '$.buyer';
    case 'fulfillment':
      return `${SHIPPING}.groups[0].selected_option_id`;
    case 'discount': {
      const code = target.code.toUpperCase();
      const at = session.discountCodes.findIndex((c) => c.toUpperCase() === code);
      return at >= 0 ? `$.discounts.codes[${at}]` : '$.discounts.codes';
    }
    case 'payment':
      return '$.payment.instruments[0]';
  }
}

/** The model's codes as UCP names them where it has a standard code (checkout.md, "Standard Errors"). */
function codeOf(message: CheckoutMessage): string {
  if (message.code === 'payment_declined') return 'payment_failed';
  const aboutItem = message.target?.kind === 'item' && message.target.field !== 'quantity';
  if (message.code === 'invalid' && aboutItem) return 'item_unavailable';
  return message.code;
}

/**
 * UCP's severity: `requires_buyer_*` means the business needs the buyer at `continue_url`, which is
 * what status requires_escalation says; while the session is not escalated, whatever it asks for
 * (an address, a country we ship to) the platform can send through the API: recoverable.
 */
function severityOf(message: CheckoutMessage, session: CheckoutSession): Severity {
  if (session.status === 'requires_escalation' && message.resolution) return message.resolution;
  return 'recoverable';
}

/** What a payment message says: the binding's words, never the handler's (they may name the token). */
const PAYMENT_CONTENT: Partial<Record<CheckoutMessage['code'], string>> = {
  payment_declined: 'The payment was declined. Pay with another instrument, or try again.',
  requires_escalation: 'The buyer must confirm this payment at continue_url.',
};

export function ucpMessage(message: CheckoutMessage, session: CheckoutSession): UcpMessage {
  const path = message.target ? { path: pathOf(message.target, session) } : {};
  const code = codeOf(message);
  const content =
    (message.target?.kind === 'payment' ? PAYMENT_CONTENT[message.code] : undefined) ?? message.content;
  if (message.type === 'error')
    return { type: 'error', code, ...path, content, severity: severityOf(message, session) };
  if (message.type === 'warning') return { type: 'warning', code, ...path, content };
  return { type: 'info', code, ...path, content };
}

// --- Errors ---------------------------------------------------------------------------------

/** Where UCP answers with another status than ours: a reused Idempotency-Key is 409 in UCP. */
const UCP_STATUS: Partial<Record<ErrorCode, number>> = { idempotency_conflict: 409 };

/** Refusals a platform fixes by changing or repeating the request. */
const RECOVERABLE = new Set<ErrorCode>([
  'validation_failed',
  'payment_token_invalid',
  'checkout_not_ready',
  'rate_limited',
  'idempotency_in_flight',
  'overloaded',
  'service_unavailable',
  'billing_unavailable',
]);

/**
 * `line_items.0.quantity` -> `$.line_items[0].quantity`; header, query-string and path fields
 * (`header.x`, `query.x`, `path.x`) have none. A bare `query` is the catalog search's body field.
 */
export function jsonPathOf(field: string | undefined): string | undefined {
  if (!field || /^(header|path)(\.|$)|^query\./.test(field)) return undefined;
  if (field === 'body') return '$';
  return `$${field
    .split('.')
    .map((s) => (/^\d+$/.test(s) ? `[${s}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `.${s}` : `['${s}']`))
    .join('')}`;
}

/** A validation detail's UCP code: a lookup over its batch size is request_too_large (catalog/lookup.md). */
function detailCode(d: ErrorDetail): string {
  if (d.field === 'ids' && d.rule === 'maxItems') return 'request_too_large';
  return d.rule === 'required' ? 'missing' : 'invalid';
}

const detailMessage = (d: ErrorDetail): UcpMessage & { type: 'error' } => {
  const path = jsonPathOf(d.field);
  return {
    type: 'error',
    code: detailCode(d),
    ...(path ? { path } : {}),
    content: d.message,
    severity: 'recoverable',
  };
};

/** Where a refused payment points: the instrument paying (the selected one) and its field. */
function paymentPath(field: string | undefined, body: unknown): string | undefined {
  const instruments = (body as { payment?: { instruments?: { selected?: unknown }[] } } | null)?.payment
    ?.instruments;
  if (!Array.isArray(instruments)) return undefined;
  const at = Math.max(
    0,
    instruments.findIndex((i) => i?.selected === true),
  );
  const leaf =
    field === 'payment.handlerId' ? '.handler_id' : field === 'payment.token' ? '.credential.token' : '';
  return `$.payment.instruments[${at}]${leaf}`;
}

/** UCP's error response for one of our errors, with the HTTP status UCP gives it. */
export function errorAnswer(error: AppError, body?: unknown): { status: number; body: unknown } {
  const details = error.code === 'validation_failed' ? (error.details ?? []) : [];
  const path =
    error.code === 'payment_token_invalid' ? paymentPath(error.details?.[0]?.field, body) : undefined;
  const messages =
    details.length > 0
      ? details.map(detailMessage)
      : [
          {
            type: 'error' as const,
            code: error.code,
            ...(path ? { path } : {}),
            content: error.message,
            severity: RECOVERABLE.has(error.code) ? ('recoverable' as const) : ('unrecoverable' as const),
          },
        ];
  return {
    status: UCP_STATUS[error.code] ?? error.status,
    body: { ucp: { version: UCP_VERSION, status: 'error' }, messages },
  };
}
