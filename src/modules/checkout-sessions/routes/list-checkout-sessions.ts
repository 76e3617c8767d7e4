import { createdKey, listOfRows, NEWEST_FIRST, type PageRequest, pageRequest } from '../../../core/paging.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { ListEnvelope, listEnvelope } from '../../../http/paging.js';
import { CheckoutSessionListQuery, CheckoutSessionSchema } from '../schemas.js';
import { listSessions, presentCheckout } from '../service.js';

export const listCheckoutSessionsRoute = defineRoute({
  method: 'GET',
  path: '/checkout-sessions',
  operationId: 'listCheckoutSessions',
  summary: 'List agentic checkout sessions',
  description:
    'ACP and UCP checkout sessions, newest first. `status` filters as a session reads now (expired open ones ' +
    'are `canceled`). Paged: `limit` (default 50), `meta.nextCursor`.',
  tags: ['Checkout sessions'],
  scope: 'admin',
  query: CheckoutSessionListQuery,
  responses: { 200: ListEnvelope(CheckoutSessionSchema, 'The checkout sessions.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const now = deps.clock.now();
    const query = { ...request.query, limit: request.query.limit ?? 50 };
    const where = { tenantId: ctx.tenantId, list: 'checkout-sessions', keys: deps.keyRing };
    const page = pageRequest(where, query, NEWEST_FIRST) as PageRequest;
    const rows = await listSessions(deps.db, ctx.tenantId, request.query, page, now);
    return listEnvelope(
      ctx,
      request,
      listOfRows(rows, page, createdKey, where, (row) => presentCheckout(row, now)),
    );
  },
});
