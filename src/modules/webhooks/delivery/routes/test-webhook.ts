import { defineRoute } from '../../../../http/declared-route.js';
import { Envelope } from '../../../../http/envelope.js';
import { errorResponses } from '../../../../http/errors.js';
import { respond } from '../../../../http/operation.js';
import { sendTestEvent } from '../../operations.js';
import { DeliverySchema, WebhookParams } from '../../schemas.js';
import { queuedResponse, TAGS } from './delivery-shared.js';

export const testWebhookRoute = defineRoute({
  method: 'POST',
  path: '/webhooks/:id/test',
  operationId: 'testWebhook',
  summary: 'Send a test event to a webhook subscription',
  description:
    'Queues a `webhook.test` event for this subscription only (whatever its `events`), signed and retried ' +
    'like any delivery: 202 with the delivery (its `self` action shows the attempts). Waits while the ' +
    'subscription is inactive. No body.',
  tags: TAGS,
  scope: 'commerce',
  params: WebhookParams,
  responses: { 202: Envelope(DeliverySchema, 'The queued test delivery.'), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
    const input = { webhookId: request.params.id };
    return respond(deps, request, reply, (ctx, key) => sendTestEvent(deps, ctx, input, key), queuedResponse);
  },
});
