import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { WebhookSchema } from '../schemas.js';
import { listWebhooks } from '../service.js';
import { TAGS } from './shared.js';

export const listWebhooksRoute = defineRoute({
  method: 'GET',
  path: '/webhooks',
  operationId: 'listWebhooks',
  summary: 'List webhook subscriptions',
  description:
    'Every webhook subscription of this tenant, active or not, newest first, with delivery stats ' +
    '(`recentFailureCount` over 24 h), never the secret. ' +
    LIST_PAGING.text,
  tags: TAGS,
  scope: 'read',
  query: PageQuery,
  responses: { 200: ListEnvelope(WebhookSchema, 'The subscriptions.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const items = await listWebhooks(deps.db, ctx.tenantId, deps.clock.now());
    return inMemoryList(deps.keyRing, ctx, request, 'webhooks', items, [next('create', 'createWebhook')]);
  },
});
