import { Type } from 'typebox';
import { defineRoute } from '../../../http/declared-route.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { deleteWebhook } from '../operations.js';
import { WebhookParams } from '../schemas.js';
import { noContent, TAGS } from './shared.js';

export const deleteWebhookRoute = defineRoute({
  method: 'DELETE',
  path: '/webhooks/:id',
  operationId: 'deleteWebhook',
  summary: 'Delete a webhook subscription',
  description:
    'Deletes the subscription with its delivery history; pending retries are cancelled. To pause ' +
    'instead, set `isActive: false`. 204 with no body.',
  tags: TAGS,
  scope: 'commerce',
  params: WebhookParams,
  responses: { 204: Type.Null({ description: 'Deleted; no body.' }), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
    const input = { webhookId: request.params.id };
    return respond(deps, request, reply, (ctx, key) => deleteWebhook(deps, ctx, input, key), noContent);
  },
});
