export { fanOutFromEvents } from './fan-out.js';
export { registerWebhookRoutes } from './routes.js';
export { WebhookSchema } from './schemas.js';
export {
  decryptSecret,
  encryptSecret,
  generateWebhookSecret,
  loadWebhookKey,
  type WebhookKeyConfig,
  webhookKey,
} from './secrets.js';
export { activeSigningSecrets, getWebhook, listWebhooks, type WebhookApi } from './service.js';
export { isNonPublicAddress, webhookUrlProblem } from './url-safety.js';
