import { iso } from '../../../core/format.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { inMemoryList, ListEnvelope } from '../../../http/paging.js';
import { RequestErrorQuery, RequestErrorSchema } from '../schemas.js';
import { tags } from './shared.js';

const example = {
  data: [
    {
      method: 'GET',
      route: '/api/v1/orders/:id',
      operationId: 'getOrder',
      status: 404,
      code: 'not_found',
      message: 'Order not found',
      requestId: 'req_0195f3c27a107c4e',
      at: '2026-03-30T12:00:00.000Z',
    },
  ],
  nextActions: [],
};

export const listRequestErrorsRoute = defineRoute({
  method: 'GET',
  path: '/admin/request-errors',
  operationId: 'listRequestErrors',
  summary: 'List recent error responses',
  description:
    'The latest error responses (status 400 and up) this tenant received from this server instance, newest ' +
    'first: method, route, operationId, status, error code and message, and the request id to find the request ' +
    'log line. Kept in memory, the last 100 per tenant: another instance, or this one after a restart, has its ' +
    'own. `status=500` keeps server errors only; `limit` and `cursor` page them as every list does.',
  tags,
  scope: 'admin',
  query: RequestErrorQuery,
  responses: {
    200: ListEnvelope(RequestErrorSchema, 'The recent errors, newest first.', example),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const entries = deps.requestErrors.recent(ctx.tenantId, { minStatus: request.query.status });
    const shown = entries.map((e) => ({ ...e, at: iso(e.at) }));
    return inMemoryList(deps.keyRing, ctx, request, 'request-errors', shown, [], (e) => e.requestId);
  },
});
