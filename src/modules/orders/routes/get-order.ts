import { notFound } from '../../../core/errors.js';
import { readTogether } from '../../../db/read-together.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { OrderParams, OrderSchema } from '../schemas.js';
import { orderRead, presentOrder } from '../service.js';
import { orderCreatedExample } from './create-order.js';
import { invoiceStateOf, orderActions, TAGS } from './order-responses.js';

const { rulesApplied: _rulesApplied, ...orderData } = orderCreatedExample.data;
export const orderExample = { ...orderCreatedExample, data: orderData };

export const getOrder = defineRoute({
  method: 'GET',
  path: '/orders/:id',
  operationId: 'getOrder',
  summary: 'Get an order',
  description: 'The full order: the shape create returns, without `rulesApplied`.',
  tags: TAGS,
  scope: 'read',
  params: OrderParams,
  responses: { 200: Envelope(OrderSchema, 'The order.', orderExample), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    // The order and its payments in one round trip.
    const [row, payments] = await readTogether(deps.db, [
      orderRead(ctx.tenantId, request.params.id),
      deps.lookups.orderPayments(ctx.tenantId, request.params.id),
    ]);
    if (!row) throw notFound('Order');
    const order = { ...presentOrder(row), payments };
    return envelope(ctx, order, orderActions(order, await invoiceStateOf(deps, ctx.tenantId, order)));
  },
});
