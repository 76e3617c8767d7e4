import { defineRoute } from '../../../../http/declared-route.js';
import { Envelope } from '../../../../http/envelope.js';
import { errorResponses } from '../../../../http/errors.js';
import { respond } from '../../../../http/operation.js';
import { replayWebhookDelivery } from '../../operations.js';
import { DeliveryParams, DeliverySchema } from '../../schemas.js';
import { queuedResponse, TAGS } from './delivery-shared.js';

export const replayWebhookDeliveryRoute = defineRoute({
  method: 'POST',
  path: '/webhooks/:id/deliveries/:deliveryId/replay',
  operationId: 'replayWebhookDelivery',
  summary: 'Replay a webhook delivery',
  description:
    'Re-enqueues the delivery (typically a `dead_letter`) for 5 fresh attempts: 202 with the delivery, now ' +
    '`pending`. Same event and id, so receivers de-duplicating by id see a repeat; `webhook-timestamp` is ' +
    'the new attempt’s. Waits while the subscription is inactive. No body.',
  tags: TAGS,
  scope: 'commerce',
  params: DeliveryParams,
  responses: { 202: Envelope(DeliverySchema, 'Re-enqueued.'), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
    const input = { webhookId: request.params.id, deliveryId: request.params.deliveryId };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => replayWebhookDelivery(deps, ctx, input, key),
      queuedResponse,
    );
  },
});
