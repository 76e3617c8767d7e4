import { createdKey, listOfRows, NEWEST_FIRST, type PageRequest, pageRequest } from '../../../core/paging.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { ListEnvelope, listEnvelope } from '../../../http/paging.js';
import { IntentListQuery, IntentSchema } from '../schemas.js';
import { listIntents, presentIntent } from '../service.js';
import { ABOUT, tags } from './shared.js';

export const listIntentsRoute = defineRoute({
  method: 'GET',
  path: '/admin/intents',
  operationId: 'listIntents',
  summary: 'List billing intents',
  description:
    `${ABOUT} Newest first; filter by \`status\` (e.g. \`pending\`, \`attention\`) and \`operation\`. ` +
    'Always paged: `limit` defaults to 50; `meta.nextCursor` and the `next` action lead on.',
  tags,
  scope: 'admin',
  query: IntentListQuery,
  responses: { 200: ListEnvelope(IntentSchema, 'The intents.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const query = { ...request.query, limit: request.query.limit ?? 50 };
    const where = { tenantId: ctx.tenantId, list: 'intents', keys: deps.keyRing };
    const page = pageRequest(where, query, NEWEST_FIRST) as PageRequest;
    const rows = await listIntents(deps.db, ctx.tenantId, request.query, page);
    return listEnvelope(ctx, request, listOfRows(rows, page, createdKey, where, presentIntent));
  },
});
