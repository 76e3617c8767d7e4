import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { RefundParams, RefundSchema, refundExample } from '../refund-schemas.js';
import { getRefund, presentRefund } from '../refund-store.js';
import { refundActions, TAGS } from './refund-shared.js';

export const getRefundRoute = defineRoute({
  method: 'GET',
  path: '/refunds/:id',
  operationId: 'getRefund',
  summary: 'Get a refund',
  description: 'One refund of this tenant, with its status.',
  tags: TAGS,
  scope: 'read',
  params: RefundParams,
  responses: {
    200: Envelope(RefundSchema, 'The refund.', refundExample),
    ...errorResponses(404),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const row = await getRefund(deps.db, ctx.tenantId, request.params.id);
    if (!row) throw notFound('Refund');
    const refund = presentRefund(row);
    return envelope(ctx, refund, refundActions(refund));
  },
});
