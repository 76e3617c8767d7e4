import { eq } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { InvoiceMoneyMoved, OrderMoney, UnitOfWork } from '../../unit-of-work/index.js';
import { getOrder, type OrderApi, presentOrder } from './service.js';
import { type OrderPaymentStatus, orders } from './tables.js';

// An order knows whether it is paid. Its money (`paidCents`, `refundedCents`) moves in the unit
// of work of the payment, refund or reversal that moved it, under the order's row lock, and its
// `paymentStatus` is derived from that money and `dueCents` and written with it, so the list
// filter is a column read. `order.paid` and `order.refunded` are emitted in the same unit.

/** The status that money gives: refunds first (money went back), then how much of the due is paid. */
export function paymentStatusOf(due: number, paid: number, refunded: number): OrderPaymentStatus {
  if (refunded > 0) return refunded >= paid ? 'refunded' : 'partially_refunded';
  if (paid > 0 && paid >= due) return 'paid';
  return paid > 0 ? 'partially_paid' : 'unpaid';
}

/** The order whose invoice is `invoiceId` (one per invoice: orders are invoiced at creation). */
export async function orderOfInvoice(db: Queryable, tenantId: string, invoiceId: string) {
  const [row] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(tenantWhere(orders, tenantId, eq(orders.invoiceId, invoiceId)))
    .limit(1);
  return row?.id;
}

/**
 * In the unit of work: moves the order's money, writes its new status and emits what changed
 * (`order.paid` on becoming paid, `order.refunded` on a refund). Locks the order row.
 */
export async function moveOrderMoney(
  u: UnitOfWork,
  orderId: string,
  money: OrderMoney,
): Promise<OrderApi | undefined> {
  const row = await getOrder(u.tx, u.ctx.tenantId, orderId, true);
  if (!row) return undefined;
  const paid = money.invoice
    ? money.invoice.amountCents - money.invoice.balanceCents
    : row.paidCents + (money.paidCents ?? 0);
  const refunded = row.refundedCents + (money.refundedCents ?? 0);
  const status = paymentStatusOf(row.dueCents, paid, refunded);
  const [after] = await u.tx
    .update(orders)
    .set({ paidCents: paid, refundedCents: refunded, paymentStatus: status, updatedAt: u.now })
    .where(tenantWhere(orders, u.ctx.tenantId, eq(orders.id, orderId)))
    .returning();
  if (!after) return undefined;
  const order = presentOrder(after);
  if (status === 'paid' && row.paymentStatus !== 'paid') await u.emit('order.paid', order);
  if ((money.refundedCents ?? 0) > 0) await u.emit('order.refunded', order);
  return order;
}

/**
 * In the unit of work that applied credit to an invoice: the invoice's order (if any) is paid as
 * the invoice now says. Handed to credits as `ServiceDeps.invoiceMoneyMoved` by src/deps.ts.
 */
export const orderFollowsInvoice: InvoiceMoneyMoved = async (u, invoice) => {
  const orderId = await orderOfInvoice(u.tx, u.ctx.tenantId, invoice.id);
  if (orderId) await moveOrderMoney(u, orderId, { invoice });
};
