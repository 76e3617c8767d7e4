export { ACP_SOURCE_EVENTS, type AcpOrderFacts, acpOrder } from './acp-events.js';
export {
  createSender,
  DeliveryWorker,
  loopbackSetting,
  type Sender,
  startDeliveryWorker,
} from './delivery/index.js';
export { merchantSignature } from './delivery/prepare.js';
export {
  type AttemptResult,
  type ClaimedDelivery,
  claimDueDeliveries,
  recordAttempts,
} from './delivery/queue.js';
export { deliveryQueueStats } from './delivery/queue-stats.js';
export { fanOutFromEvents } from './fan-out.js';
export {
  enqueuePlatformDelivery,
  type PlatformDelivery,
  type PlatformSigning,
  type QueuedPlatformDelivery,
} from './platform-deliveries.js';
export { WebhookSchema } from './schemas.js';
export { generateWebhookSecret } from './secrets.js';
export { activeSigningSecrets, getWebhook, insertWebhook, listWebhooks, type WebhookApi } from './service.js';
export {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  WEBHOOK_FORMATS,
  type WebhookFormat,
  webhookDeliveries,
  webhookSubscriptions,
} from './tables.js';
export { isNonPublicAddress, platformUrlProblem, webhookUrlProblem } from './url-safety.js';
