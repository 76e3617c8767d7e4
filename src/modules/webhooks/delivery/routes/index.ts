import type { DeclaredRoute } from '../../../../http/declared-route.js';
import { getWebhookDeliveryRoute } from './get-webhook-delivery.js';
import { listWebhookDeliveriesRoute } from './list-webhook-deliveries.js';
import { replayWebhookDeliveryRoute } from './replay-webhook-delivery.js';
import { testWebhookRoute } from './test-webhook.js';

export const deliveryRoutes: DeclaredRoute[] = [
  listWebhookDeliveriesRoute,
  getWebhookDeliveryRoute,
  replayWebhookDeliveryRoute,
  testWebhookRoute,
];
