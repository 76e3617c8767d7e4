import { and, eq, isNotNull } from 'drizzle-orm';
import { validationFailed } from '../../core/errors.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { UnitOfWork } from '../../unit-of-work/index.js';
import { planRestock, type RestockAsk, type RestockLine, restockOrder } from '../stock/index.js';
import { paymentSessions, refunds } from './tables.js';

// What a refund puts back in stock: decided under the order's stock row locks when the refund is
// reserved (counting the units other pending refunds will put back), moved when it succeeds.

/** The order's units a refund puts back, as kept in its plan. */
export interface RefundRestock {
  orderId: string;
  lines: RestockLine[];
}

interface RestockInput {
  restock?: boolean;
  restockItems?: readonly RestockLine[];
}

/** What the request asks to restock: nothing, everything left (`restock: true`), or named lines. */
function askOf(input: RestockInput): RestockAsk | null {
  if (input.restockItems && input.restock)
    throw validationFailed(
      'restockItems',
      'exclusive',
      'Send `restock: true` (every unit left) or `restockItems` (these units), not both',
    );
  return input.restockItems ?? (input.restock ? true : null);
}

/** Units per product that the order's pending refunds (not yet settled) will put back. */
async function pendingRestocks(q: Queryable, tenantId: string, orderId: string) {
  const rows = await q
    .select({ restock: refunds.restock })
    .from(refunds)
    .innerJoin(
      paymentSessions,
      and(eq(paymentSessions.tenantId, refunds.tenantId), eq(paymentSessions.id, refunds.paymentSessionId)),
    )
    .where(
      tenantWhere(
        refunds,
        tenantId,
        eq(paymentSessions.orderId, orderId),
        eq(refunds.status, 'pending'),
        isNotNull(refunds.restock),
      ),
    );
  const pending = new Map<string, number>();
  for (const line of rows.flatMap((r) => r.restock ?? []))
    pending.set(line.productId, (pending.get(line.productId) ?? 0) + line.quantity);
  return pending;
}

/**
 * The restock of a refund of `session`, checked (400/409 naming `restockItems.N`); null when none
 * is asked, or `restock: true` on a payment of no order (nothing to put back).
 */
export async function planRefundRestock(
  q: Queryable,
  tenantId: string,
  session: { orderId: string | null },
  input: RestockInput,
): Promise<RefundRestock | null> {
  const ask = askOf(input);
  if (ask === null) return null;
  if (!session.orderId) {
    if (ask === true) return null;
    throw validationFailed(
      'restockItems',
      'order',
      'The payment paid no order: there is no stock to put back',
    );
  }
  const pending = await pendingRestocks(q, tenantId, session.orderId);
  return { orderId: session.orderId, lines: await planRestock(q, tenantId, session.orderId, ask, pending) };
}

/** In the refund's unit of work: the planned units back in stock; the refund row keeps what moved. */
export async function moveRefundRestock(u: UnitOfWork, refundId: string, restock: RefundRestock) {
  const moved = await restockOrder(u, restock.orderId, restock.lines);
  await u.tx
    .update(refunds)
    .set({ restock: moved })
    .where(tenantWhere(refunds, u.ctx.tenantId, eq(refunds.id, refundId)));
  return moved;
}

/** A plan kept by an intent written before per-line restock: every unit the order has left. */
export async function legacyRestock(q: Queryable, tenantId: string, orderId: string): Promise<RefundRestock> {
  return { orderId, lines: await planRestock(q, tenantId, orderId, true) };
}
