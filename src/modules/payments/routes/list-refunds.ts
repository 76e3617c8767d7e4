import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { ListEnvelope, newestFirstList } from '../../../http/paging.js';
import { RefundListQuery, RefundSchema } from '../refund-schemas.js';
import { listRefunds, presentRefund } from '../refund-store.js';
import { TAGS } from './refund-shared.js';

export const listRefundsRoute = defineRoute({
  method: 'GET',
  path: '/refunds',
  operationId: 'listRefunds',
  summary: 'List refunds',
  description: `Refunds of the tenant, newest first; filters \`paymentId\`, \`accountId\`, \`status\`. ${LIST_PAGING.text}`,
  tags: TAGS,
  scope: 'read',
  query: RefundListQuery,
  responses: { 200: ListEnvelope(RefundSchema, 'The refunds.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    return newestFirstList(
      ctx,
      request,
      deps.keyRing,
      'refunds',
      (page) => listRefunds(deps.db, ctx.tenantId, request.query, page),
      presentRefund,
      [],
    );
  },
});
