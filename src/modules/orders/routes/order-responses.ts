import { readTogether } from '../../../db/read-together.js';
import type { RequestContext } from '../../../http/context.js';
import type { Deps } from '../../../http/deps.js';
import { type ActionSpec, envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { CreatedOrder, InvoiceState } from '../create.js';
import type { OrderApi } from '../service.js';

export const TAGS = ['Orders'];

/** What the order's payment sessions show of it: enough to see what was paid and what is open. */
type OrderPayment = NonNullable<OrderApi['payments']>[number];

/**
 * How an order is paid, when there is something to pay: nothing once it is paid (`paymentStatus`),
 * its invoice's balance (nothing once the invoice is paid or void), or else a payment session for
 * what is left of an owned, non-zero order (a draft, without an owner, is not paid), with the
 * order named so the payment counts on it. With open sessions covering the rest, the way on is
 * one of them. `invoice` is undefined when the billing system could not be read: the payment is
 * offered without the amount.
 */
export function paymentActions(order: OrderApi, invoice: InvoiceState | undefined): ActionSpec[] {
  if (order.paymentStatus !== 'unpaid' && order.paymentStatus !== 'partially_paid') return [];
  if (order.invoiceId) {
    if (invoice && (invoice.status !== 'open' || invoice.balanceCents <= 0)) return [];
    return [
      next('payInvoice', 'payInvoice', {
        id: order.invoiceId,
        ...(order.billingAccountId ? { accountId: order.billingAccountId } : {}),
        ...(invoice ? { amountCents: invoice.balanceCents } : {}),
        currency: order.currency,
      }),
    ];
  }
  // A draft (no owner) or an order of nothing has no one to pay or nothing to pay.
  if (order.totalCents <= 0 || (!order.organizationId && !order.contactId)) return [];
  const open = (order.payments ?? []).filter((p) => p.status === 'pending' || p.status === 'processing');
  const left = order.totalCents - order.paidCents - open.reduce((s, p) => s + p.amountCents, 0);
  if (left <= 0) return open.map((p) => next('openPayment', 'getPaymentSession', { id: p.id }));
  return [
    next('createPaymentSession', 'createPaymentSession', {
      ...(order.organizationId ? { accountId: order.organizationId } : {}),
      amountCents: left,
      currency: order.currency,
      orderId: order.id,
    }),
  ];
}

export function orderActions(
  order: OrderApi,
  invoice: InvoiceState | undefined,
  hasSubscription = false,
  provisioned = false,
): ActionSpec[] {
  const then: ActionSpec[] = provisioned
    ? [next('subscriptions', 'listSubscriptions', { orderId: order.id })]
    : hasSubscription
      ? [next('createSubscription', 'createSubscription')]
      : paymentActions(order, invoice);
  // A draft with something to pay has no buyer: it takes no payment, and an account is the way on
  // (a cart for it, then an order with its organizationId).
  const ownerless = !order.organizationId && !order.contactId && order.totalCents > 0;
  return [
    next('self', 'getOrder', { id: order.id }),
    next('update', 'updateOrder', { id: order.id }),
    ...then,
    ...(ownerless ? [next('createAccount', 'createAccount')] : []),
  ];
}

/** The order's invoice as the billing system has it now; undefined when there is none or it cannot be read. */
export async function invoiceStateOf(
  deps: Deps,
  tenantId: string,
  order: OrderApi,
): Promise<InvoiceState | undefined> {
  if (!order.invoiceId) return undefined;
  const adapter = await deps.billing.forTenant(deps.db, tenantId);
  const read = adapter ? await adapter.getInvoice(order.invoiceId) : undefined;
  return read?.ok ? { status: read.value.status, balanceCents: read.value.balanceCents } : undefined;
}

/** The payment sessions paying the order (single-order responses). */
export async function paymentsOf(deps: Deps, tenantId: string, orderId: string): Promise<OrderPayment[]> {
  const [payments] = await readTogether(deps.db, [deps.lookups.orderPayments(tenantId, orderId)]);
  return payments;
}

/** The order in its envelope, with what comes next. */
export const orderResponse = (order: OrderApi, ctx: RequestContext, invoice?: InvoiceState): Presented => ({
  status: 200,
  body: envelope(ctx, order, orderActions(order, invoice)),
});

/** A new order with `rulesApplied` (returned on create only). */
export const createdOrderResponse = (created: CreatedOrder, ctx: RequestContext): Presented => ({
  status: 201,
  body: envelope(
    ctx,
    { ...created.order, payments: [], rulesApplied: created.rulesApplied },
    orderActions(created.order, created.invoice, created.hasSubscription, created.provisioned),
  ),
});
