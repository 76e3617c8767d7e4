import type { Static } from 'typebox';
import type { OperationContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { checkedTotal } from '../../core/money.js';
import { diffChanges, type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { assertAllowed, evaluatePolicies } from '../policies/index.js';
import { priceLines } from '../pricing/index.js';
import { priceOrderLines } from './pricing.js';
import type { PatchOrderBody } from './schemas.js';
import { getOrder, type OrderApi, presentOrder, updateOrder } from './service.js';
import type { OrderLine } from './tables.js';

const changedFields = (o: OrderApi) => ({ status: o.status, items: o.items, totalCents: o.totalCents });

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
      lines,
      current.currency,
      () => deps.billing.forTenant(deps.db, ctx.tenantId),
    );
    items = priced.lines.map(({ productType: _t, ...line }) => line);
    if (items.length > 0) totalCents = checkedTotal(priced.totalCents, 'items');
  } else if (totalCents !== undefined && current.items.length > 0) {
    totalCents = current.totalCents;
  }
  const patch = {
    ...(body.status === undefined ? {} : { status: body.status }),
    ...(items === undefined ? {} : { items }),
    ...(totalCents === undefined ? {} : { totalCents }),
  };
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const before = await getOrder(u.tx, ctx.tenantId, current.id, true);
    if (!before) throw notFound('Order');
    const after = await updateOrder(u.tx, ctx.tenantId, before.id, patch, u.now);
    if (!after) throw notFound('Order');
    const order = presentOrder(after);
    await u.audit({
      action: 'order.update',
      resourceType: 'order',
      resourceId: order.id,
      details: diffChanges(changedFields(presentOrder(before)), changedFields(order)),
    });
    await u.emit('order.updated', order);
    return order;
  });
}
