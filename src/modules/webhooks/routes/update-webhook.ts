import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { updateWebhook } from '../operations.js';
import { UpdateWebhookBody, WebhookParams, WebhookSchema } from '../schemas.js';
import { TAGS, webhookResponse } from './shared.js';

export const updateWebhookRoute = defineRoute({
  method: 'PATCH',
  path: '/webhooks/:id',
  operationId: 'updateWebhook',
  summary: 'Update a webhook subscription',
  description:
    'Changes the given fields (at least one). A new `url` is checked as on creation. Events missed while ' +
    'inactive or not subscribed are never redelivered. Audit `webhook.update` (before/after diff).',
  tags: TAGS,
  scope: 'commerce',
  params: WebhookParams,
  body: UpdateWebhookBody,
  responses: { 200: Envelope(WebhookSchema, 'The updated subscription.'), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
    const input = { webhookId: request.params.id, changes: request.body };
    return respond(deps, request, reply, (ctx, key) => updateWebhook(deps, ctx, input, key), webhookResponse);
  },
});
