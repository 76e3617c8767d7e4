import { requireCtx } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { publicBase } from '../binding.js';
import { capabilitiesFor, incompatible } from '../negotiation.js';
import { ucpOrder } from '../placed-orders.js';
import { presentOrder } from '../present-order.js';
import { CAPABILITY, UCP_REST_PATH } from '../protocol.js';
import { Answer } from '../schemas/common.js';
import { orderExample } from '../schemas/examples.js';
import { OrderParams, OrderResponse } from '../schemas/order.js';
import { negotiatedRequest } from './call.js';
import { sendAsIs, ucpEdge } from './edge.js';
import { CALL_ERRORS, errorAnswers, TAGS } from './responses.js';

export const getUcpOrder = defineRoute({
  method: 'GET',
  path: '/orders/:id',
  prefix: UCP_REST_PATH,
  protocol: ucpEdge,
  public: false,
  operationId: 'ucpGetOrder',
  summary: 'UCP: get an order',
  description:
    'The current state of an order a UCP checkout of the key’s tenant placed (`order.id` of the completed ' +
    'checkout): its lines with quantities, fulfillment expectations and events, adjustments (refunds, ' +
    'cancellation) and totals; the same entity the order webhook carries. Another id answers 200 with ' +
    '`ucp.status: "error"` and `not_found`, as UCP’s order binding does. The platform profile ' +
    '(`UCP-Agent`) must declare `dev.ucp.shopping.order`.',
  tags: TAGS,
  scope: 'read',
  params: OrderParams,
  responses: {
    200: Answer(OrderResponse, 'The order.', orderExample),
    ...errorAnswers(...CALL_ERRORS),
  },
  handler: async (request, reply, deps) => {
    const ctx = requireCtx(request);
    const negotiated = await negotiatedRequest(deps, request);
    const refused = incompatible(negotiated, CAPABILITY.order);
    if (refused) return sendAsIs(reply, 200, refused);
    const ucp = {
      version: negotiated.version,
      status: 'success' as const,
      capabilities: capabilitiesFor(negotiated, CAPABILITY.order),
    };
    const found = await ucpOrder(deps, ctx, request.params.id);
    if (!found) {
      const content = 'Order not found.';
      const messages = [{ type: 'error', code: 'not_found', severity: 'unrecoverable', content }];
      return sendAsIs(reply, 200, { ucp: { ...ucp, status: 'error' }, messages });
    }
    return reply.send(presentOrder(found.session, found.order, { base: publicBase(deps), ucp }));
  },
});
