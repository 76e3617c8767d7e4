export { createSender, DeliveryWorker, type Sender, startDeliveryWorker } from './delivery/index.js';
export {
  type AttemptResult,
  type ClaimedDelivery,
  claimDueDeliveries,
  recordAttempts,
} from './delivery/queue.js';
export { fanOutFromEvents } from './fan-out.js';
export { WebhookSchema } from './schemas.js';
export { generateWebhookSecret } from './secrets.js';
export { activeSigningSecrets, getWebhook, insertWebhook, listWebhooks, type WebhookApi } from './service.js';
export { DELIVERY_STATUSES, type DeliveryStatus } from './tables.js';
export { isNonPublicAddress, webhookUrlProblem } from './url-safety.js';
