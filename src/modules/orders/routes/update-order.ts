import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { OrderParams, OrderSchema, PatchOrderBody } from '../schemas.js';
import { getOrder, type OrderApi, presentOrder } from '../service.js';
import { updateOrderFields } from '../update.js';
import { orderExample } from './get-order.js';
import { invoiceStateOf, orderResponse, paymentsOf, TAGS } from './order-responses.js';

export const orderUpdatedExample = { ...orderExample, data: { ...orderExample.data, status: 'fulfilled' } };

export const updateOrder = defineRoute({
  method: 'PATCH',
  path: '/orders/:id',
  operationId: 'updateOrder',
  summary: 'Update an order',
  description:
    'Changes `status`, `items` (re-priced like create) and/or `totalCents` (refused, never dropped, where ' +
    'it does not apply). `order_update` policies run first (403 `policy_blocked`). Audit `order.update`; ' +
    'event `order.updated`. Invoices and subscriptions made from the order are not changed.',
  tags: TAGS,
  scope: 'commerce',
  params: OrderParams,
  body: PatchOrderBody,
  responses: {
    200: Envelope(OrderSchema, 'The updated order.', orderUpdatedExample),
    ...errorResponses(404, 502),
  },
  handler: async (request, reply, deps) => {
    const input = { orderId: request.params.id, changes: request.body };
    // An update leaves the invoice as it is: read before, so the presenter needs no billing call.
    const tenantId = requireCtx(request).tenantId;
    const before = await getOrder(deps.db, tenantId, input.orderId);
    const invoice = before ? await invoiceStateOf(deps, tenantId, presentOrder(before)) : undefined;
    // Nor does it change the order's payments: read before too.
    const payments = before ? await paymentsOf(deps, tenantId, before.id) : [];
    return respond<OrderApi>(
      deps,
      request,
      reply,
      (ctx, key) => updateOrderFields(deps, ctx, input, key),
      (order, ctx) => orderResponse({ ...order, payments }, ctx, invoice),
    );
  },
});
