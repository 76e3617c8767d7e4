import type { DeclaredRoute } from '../../../http/declared-route.js';
import { createWebhookRoute } from './create-webhook.js';
import { deleteWebhookRoute } from './delete-webhook.js';
import { getWebhookRoute } from './get-webhook.js';
import { getWebhookDeliveryRoute } from './get-webhook-delivery.js';
import { listWebhookDeliveriesRoute } from './list-webhook-deliveries.js';
import { listWebhookEventTypesRoute } from './list-webhook-event-types.js';
import { listWebhooksRoute } from './list-webhooks.js';
import { replayWebhookDeliveryRoute } from './replay-webhook-delivery.js';
import { rotateWebhookSecretRoute } from './rotate-webhook-secret.js';
import { testWebhookRoute } from './test-webhook.js';
import { updateWebhookRoute } from './update-webhook.js';

const deliveryRoutes: DeclaredRoute[] = [
  listWebhookDeliveriesRoute,
  getWebhookDeliveryRoute,
  replayWebhookDeliveryRoute,
  testWebhookRoute,
];
export const webhookRoutes: DeclaredRoute[] = [
  ...deliveryRoutes,
  listWebhookEventTypesRoute,
  createWebhookRoute,
  listWebhooksRoute,
  getWebhookRoute,
  updateWebhookRoute,
  deleteWebhookRoute,
  rotateWebhookSecretRoute,
];
