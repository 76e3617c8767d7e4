import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { ApiKeySchema } from '../schemas.js';
import { listApiKeys } from '../service.js';
import { present, TAGS } from './shared.js';

export const listApiKeysRoute = defineRoute({
  method: 'GET',
  path: '/admin/api-keys',
  operationId: 'listApiKeys',
  summary: 'List API keys',
  description: `All keys of this tenant, active and revoked, newest first. Secrets are never shown. ${LIST_PAGING.text}`,
  tags: TAGS,
  scope: 'admin',
  query: PageQuery,
  responses: { 200: ListEnvelope(ApiKeySchema, 'The tenant’s keys, newest first.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const keys = await listApiKeys(deps.db, ctx.tenantId);
    return inMemoryList(deps.keyRing, ctx, request, 'api-keys', keys.map(present), [
      next('create', 'createApiKey'),
    ]);
  },
});
