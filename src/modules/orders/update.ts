import type { Static } from 'typebox';
import type { OperationContext } from '../../core/context.js';
import { notFound, validationFailed } from '../../core/errors.js';
import { checkedTotal } from '../../core/money.js';
import {
  diffChanges,
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { assertAllowed, evaluatePolicies } from '../policies/index.js';
import { priceLines } from '../pricing/index.js';
import { moveOrderStock } from '../stock/index.js';
import { priceOrderLines } from './line-prices.js';
import { paymentStatusOf } from './payment-state.js';
import type { PatchOrderBody } from './schemas.js';
import { getOrder, type OrderApi, type OrderRow, presentOrder, updateOrder } from './service.js';
import type { OrderLine } from './tables.js';

const changedFields = (o: OrderApi) => ({
  status: o.status,
  items: o.items,
  totalCents: o.totalCents,
  paymentStatus: o.paymentStatus,
});

/** A total sent with lines must be theirs: the lines decide it, a different one is not kept silently. */
function pricedTotal(resolved: number, submitted: number | undefined): number {
  if (submitted !== undefined && submitted !== resolved)
    throw validationFailed(
      'totalCents',
      'priced',
      `totalCents ${submitted} differs from the total of the lines (${resolved}), which decides it; omit totalCents`,
    );
  return resolved;
}

/** A total alone: only for an order without lines that was not invoiced. */
function refuseTotal(order: OrderRow, totalCents: number) {
  if (totalCents === order.totalCents) return;
  if (order.items.length > 0)
    throw validationFailed(
      'totalCents',
      'priced',
      `the order has priced lines: its total (${order.totalCents}) is theirs; send items to change it`,
    );
  if (order.invoiceId)
    throw validationFailed(
      'totalCents',
      'invoiced',
      `the order was invoiced (${order.invoiceId}) for ${order.dueCents}; its total cannot change`,
    );
}

/**
 * An order not invoiced asks its total: a new total moves what is due and the payment status
 * with it (an invoiced order is paid through its invoice, which the update does not change).
 */
function withDue(
  before: OrderRow,
  patch: Parameters<typeof updateOrder>[3],
): Parameters<typeof updateOrder>[3] {
  if (patch.totalCents === undefined || before.invoiceId) return patch;
  return {
    ...patch,
    dueCents: patch.totalCents,
    paymentStatus: paymentStatusOf(patch.totalCents, before.paidCents, before.refundedCents),
  };
}

/** Free-form statuses that move the order's reserved stock: given back, or gone out on hand. */
const RELEASING = new Set(['cancelled', 'canceled']);
const CONSUMING = new Set(['fulfilled', 'shipped', 'delivered', 'completed']);

/** In the update's unit of work: the order's reservation released or consumed by its new status. */
async function stockFollowsStatus(u: UnitOfWork, before: OrderRow, after: OrderRow) {
  if (before.status === after.status) return;
  if (RELEASING.has(after.status)) await moveOrderStock(u, after.id, 'released');
  else if (CONSUMING.has(after.status)) await moveOrderStock(u, after.id, 'consumed');
}

/**
 * PATCH /orders/{id}: `order_update` policies first (403); `items` re-priced as on create (a priced
 * order's total follows its lines); invoices and subscriptions made from the order stay as they are.
 */
export async function updateOrderFields(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { orderId: string; changes: Static<typeof PatchOrderBody> },
  key: OperationKey<OrderApi>,
): Promise<OrderApi> {
  const current = await getOrder(deps.db, ctx.tenantId, input.orderId);
  if (!current) throw notFound('Order');
  const body = input.changes;
  assertAllowed(
    await evaluatePolicies(deps.db, ctx.tenantId, 'order_update', {
      order: presentOrder(current),
      changes: body,
    }),
  );
  let items: OrderLine[] | undefined;
  let totalCents = body.totalCents;
  if (body.items) {
    const lines = body.items.map((i) => ({ productId: i.productId, quantity: i.quantity ?? 1 }));
    const priced = await priceOrderLines(
      await priceLines(deps.db, ctx.tenantId, lines, current.customerContext, deps.clock.now()),
      body.items.map((i) => ({
        productId: i.productId,
        quantity: i.quantity ?? 1,
        priceCents: i.priceCents,
      })),
      current.currency,
      () => deps.billing.forTenant(deps.db, ctx.tenantId),
    );
    // A price hint that is not the resolved price would be dropped: refused, as totalCents is.
    const [hint] = priced.hints;
    if (hint)
      throw validationFailed(
        hint.field,
        'priced',
        `${hint.field} ${hint.submitted} differs from the resolved unit price (${hint.resolved}); omit it`,
      );
    items = priced.lines.map(({ productType: _t, ...line }) => line);
    if (items.length > 0) totalCents = pricedTotal(checkedTotal(priced.totalCents, 'items'), body.totalCents);
  } else if (totalCents !== undefined) {
    refuseTotal(current, totalCents);
  }
  const patch = {
    ...(body.status === undefined ? {} : { status: body.status }),
    ...(items === undefined ? {} : { items }),
    ...(totalCents === undefined ? {} : { totalCents }),
  };
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const before = await getOrder(u.tx, ctx.tenantId, current.id, true);
    if (!before) throw notFound('Order');
    const after = await updateOrder(u.tx, ctx.tenantId, before.id, withDue(before, patch), u.now);
    if (!after) throw notFound('Order');
    await stockFollowsStatus(u, before, after);
    const order = presentOrder(after);
    await u.audit({
      action: 'order.update',
      resourceType: 'order',
      resourceId: order.id,
      details: diffChanges(changedFields(presentOrder(before)), changedFields(order)),
    });
    await u.emit('order.updated', order);
    await deps.orderChanged(u, order);
    return order;
  });
}
