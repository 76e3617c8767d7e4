import type { RequestContext } from '../../../../http/context.js';
import { type ActionSpec, envelope, next } from '../../../../http/envelope.js';
import type { Presented } from '../../../../http/operation.js';
import type { DeliveryApi } from '../log.js';

export const TAGS = ['Webhooks'];
export const DEFAULT_PAGE = 100;

export function deliveryActions(subscriptionId: string, deliveryId: string): ActionSpec[] {
  return [
    next('self', 'getWebhookDelivery', { id: subscriptionId, deliveryId }),
    next('replay', 'replayWebhookDelivery', { id: subscriptionId, deliveryId }),
    next('deliveries', 'listWebhookDeliveries', { id: subscriptionId }),
    next('webhook', 'getWebhook', { id: subscriptionId }),
  ];
}

/** A delivery queued (202), with its links. */
export const queuedResponse = (delivery: DeliveryApi, ctx: RequestContext): Presented => ({
  status: 202,
  body: envelope(ctx, delivery, deliveryActions(delivery.subscriptionId, delivery.id)),
});
