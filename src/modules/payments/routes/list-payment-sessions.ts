import { LIST_PAGING } from '../../../core/agent-guide.js';
import { createdKey, listOfRows, NEWEST_FIRST, pageRequest } from '../../../core/paging.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { ListEnvelope, listEnvelope } from '../../../http/paging.js';
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
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const where = { tenantId: ctx.tenantId, list: 'payments', keys: deps.keyRing };
    const page = pageRequest(where, request.query, NEWEST_FIRST);
    const rows = await listSessions(deps.db, ctx.tenantId, request.query, page);
    const list = listOfRows(rows, page, createdKey, where, presentSession);
    return listEnvelope(ctx, request, list, [next('createPaymentSession', 'createPaymentSession')]);
  },
});
