import { LIST_PAGING } from '../../../core/agent-guide.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { ListEnvelope, newestFirstList } from '../../../http/paging.js';
import { PaymentListQuery, PaymentSessionSchema } from '../schemas.js';
import { listSessions, presentSession } from '../service.js';
import { TAGS } from './shared.js';

export const listPaymentSessionsRoute = defineRoute({
  method: 'GET',
  path: '/payments',
  operationId: 'listPaymentSessions',
  summary: 'List payment sessions',
  description: `The payment sessions of the tenant, newest first; filters \`accountId\`, \`status\`, \`tag\`. ${LIST_PAGING.text}`,
  tags: TAGS,
  scope: 'read',
  query: PaymentListQuery,
  responses: { 200: ListEnvelope(PaymentSessionSchema, 'The sessions.') },
  handler: async (request, _reply, deps) =>
    newestFirstList(request, deps.keyRing, {
      name: 'payments',
      read: (tenantId, page) => listSessions(deps.db, tenantId, request.query, page),
      present: presentSession,
      actions: [next('createPaymentSession', 'createPaymentSession')],
    }),
});
