import { notFound } from '../../../../core/errors.js';
import { requireCtx } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { Envelope, envelope } from '../../../../http/envelope.js';
import { errorResponses } from '../../../../http/errors.js';
import { DeliveryDetailSchema, DeliveryParams } from '../../schemas.js';
import { getDelivery } from '../log.js';
import { deliveryActions, TAGS } from './delivery-shared.js';

export const getWebhookDeliveryRoute = defineRoute({
  method: 'GET',
  path: '/webhooks/:id/deliveries/:deliveryId',
  operationId: 'getWebhookDelivery',
  summary: 'Get a webhook delivery with its attempts',
  description:
    'One delivery: its status and schedule, the event body as sent, and every attempt (time, response ' +
    'status, duration, the first 1,024 characters of the response body, error).',
  tags: TAGS,
  scope: 'read',
  params: DeliveryParams,
  responses: { 200: Envelope(DeliveryDetailSchema, 'The delivery.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const { id, deliveryId } = request.params;
    const delivery = await getDelivery(deps.db, ctx.tenantId, id, deliveryId);
    if (!delivery) throw notFound('Delivery');
    return envelope(ctx, delivery, deliveryActions(id, deliveryId));
  },
});
