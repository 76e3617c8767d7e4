import type { OperationContext } from '../../../core/context.js';
import { AppError } from '../../../core/errors.js';
import type { ServiceDeps } from '../../../unit-of-work/index.js';
import { getOrder, type OrderRow } from '../../orders/index.js';
import type { CheckoutSession } from '../model.js';
import { getCheckout } from '../operations.js';

// The orders UCP checkouts placed: what get order and the order webhook read.

export const isUuid = (id: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

/**
 * An order placed by a UCP checkout session of the caller's tenant, with that session; undefined
 * for an unknown id, another tenant's order, or an order no UCP checkout placed.
 */
export async function ucpOrder(
  deps: ServiceDeps,
  ctx: OperationContext,
  orderId: string,
): Promise<{ order: OrderRow; session: CheckoutSession } | undefined> {
  if (!isUuid(orderId)) return undefined;
  const order = await getOrder(deps.db, ctx.tenantId, orderId);
  if (!order?.checkoutSessionId) return undefined;
  const session = await getCheckout(deps, ctx, order.checkoutSessionId).catch((err: unknown) => {
    if (err instanceof AppError && err.code === 'not_found') return undefined;
    throw err;
  });
  if (session?.protocol !== 'ucp' || session.orderId !== order.id) return undefined;
  return { order, session };
}
