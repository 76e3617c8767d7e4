import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { CreateRefundBody, RefundSchema, refundExample } from '../refund-schemas.js';
import { createRefund } from '../refunds.js';
import { SessionParams } from '../schemas.js';
import { refundResponse, TAGS } from './refund-shared.js';

export const createRefundRoute = defineRoute({
  method: 'POST',
  path: '/payments/:id/refunds',
  operationId: 'createRefund',
  summary: 'Refund a payment',
  description:
    'Gives back `amountCents` of a `success` session (its `refundedCents` grows), recorded in the billing ' +
    'system against the invoice it paid (which stays paid). 409 `payment_not_refundable` (not successful) ' +
    'or `refund_exceeds_remaining`; 409 `conflict` with `Retry-After` while the payment is being reversed; 501 `capability_unavailable` when the billing system has no refunds. ' +
    '`restock`/`restockItems`: the order’s units back in stock. Emits `refund.created`, `refund.succeeded` and `product.restocked`.',
  tags: TAGS,
  scope: 'commerce',
  createdAt: [{ collection: '/api/v1/refunds' }],
  params: SessionParams,
  body: CreateRefundBody,
  responses: {
    201: Envelope(RefundSchema, 'The refund.', refundExample),
    ...errorResponses(404, 409, 501, 502),
  },
  handler: async (request, reply, deps) => {
    const input = { sessionId: request.params.id, ...request.body };
    return respond(deps, request, reply, (ctx, key) => createRefund(deps, ctx, input, key), refundResponse);
  },
});
