/**
 * The registry of webhook event types: the one list the manifest, the webhook API and the
 * outbox read. Add a type here and it is served everywhere.
 */
export const EVENT_TYPES = {
  'account.created': 'An account (organization) was created.',
  'account.updated': 'An account was updated.',
  'product.stock_low':
    'A tracked product’s available stock fell to or below its `lowStockThreshold` (once per crossing); data is its stock.',
  'product.out_of_stock':
    'A tracked product’s available stock reached 0 (once per crossing); data is its stock.',
  'product.restocked':
    'A refund with restock put units of a tracked product back; data is its stock, `orderId` and `quantity`.',
  'order.created': 'An order was created (POST /orders).',
  'order.updated': 'An order was updated (PATCH /orders/{id}).',
  'order.paid':
    'An order became paid (`paymentStatus: paid`): by its invoice or by the payment sessions linked to it; emitted with the payment that did it.',
  'order.refunded':
    'A refund of a payment on an order succeeded (`paymentStatus` `partially_refunded` or `refunded`); emitted with the refund.',
  'subscription.created': 'A subscription was created, by any path.',
  'subscription.changed': 'A subscription changed plan or quantity.',
  'subscription.cancelled': 'A subscription was cancelled.',
  'subscription.renewed': 'A subscription was renewed into a new period.',
  'payment.session_created': 'A payment session was created.',
  'payment.succeeded': 'A payment session reached success.',
  'payment.failed': 'A payment session failed.',
  'payment.reversed':
    'A provider reported a failure after success: the session stays `success` with its `reversal`, and the money is taken back like a dispute (its invoice open again for the amount, its order no longer paid by it).',
  'invoice.created': 'An invoice was created in the billing system.',
  'invoice.paid': 'An invoice became fully paid.',
  'invoice.failed': 'An invoice payment failed.',
  'invoice.reopened': 'A payment on an invoice was reversed: the invoice is open again for the amount.',
  'refund.created': 'A refund of a payment session was requested; the billing system records it next.',
  'refund.succeeded': 'A refund was recorded in the billing system: the money goes back to the customer.',
  'refund.failed':
    'The billing system refused a refund; nothing was given back and the amount is refundable again.',
  'credit.granted': 'Credit was added to an account’s balance (by an admin, a cancellation or a downgrade).',
  'credit.applied': 'Account credit was applied to an open invoice, lowering its balance.',
  'credit.expired': 'What remained of a credit grant lapsed at its expiry.',
  'entitlements.changed':
    'The features an account is entitled to changed (a subscription was created, changed, renewed or cancelled).',
  'webhook.test': 'A test event sent on request to one webhook subscription.',
} as const;

export type EventType = keyof typeof EVENT_TYPES;

export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_TYPES, value);
}
