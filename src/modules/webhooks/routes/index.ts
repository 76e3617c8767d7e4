import type { DeclaredRoute } from '../../../http/declared-route.js';
import { deliveryRoutes } from '../delivery/routes/index.js';
import { createWebhookRoute } from './create-webhook.js';
import { deleteWebhookRoute } from './delete-webhook.js';
import { getWebhookRoute } from './get-webhook.js';
import { listWebhookEventTypesRoute } from './list-webhook-event-types.js';
import { listWebhooksRoute } from './list-webhooks.js';
import { rotateWebhookSecretRoute } from './rotate-webhook-secret.js';
import { updateWebhookRoute } from './update-webhook.js';

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
