import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { EventTypeSchema } from '../schemas.js';
import { EVENT_TYPE_LIST, TAGS } from './shared.js';

// Before `/webhooks/:id`, so `event-types` is never read as an id.
export const listWebhookEventTypesRoute = defineRoute({
  method: 'GET',
  path: '/webhooks/event-types',
  operationId: 'listWebhookEventTypes',
  summary: 'List webhook event types',
  description:
    'Every event type a webhook subscription can name in `events`, with when it is emitted (as ' +
    '`capabilities.eventTypes` in GET /manifest). `*` (not listed) means all. ' +
    LIST_PAGING.text,
  tags: TAGS,
  scope: 'read',
  query: PageQuery,
  responses: { 200: ListEnvelope(EventTypeSchema, 'The event types.') },
  handler: async (request, _reply, deps) =>
    inMemoryList(
      deps.keyRing,
      requireCtx(request),
      request,
      'webhook-event-types',
      [...EVENT_TYPE_LIST],
      [next('createWebhook', 'createWebhook')],
      (type) => type.type,
    ),
});
