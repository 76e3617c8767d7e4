import { LIST_PAGING } from '../../../core/agent-guide.js';
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
  handler: async (request, _reply, deps) =>
    newestFirstList(request, deps.keyRing, {
      name: 'refunds',
      read: (tenantId, page) => listRefunds(deps.db, tenantId, request.query, page),
      present: presentRefund,
    }),
});
