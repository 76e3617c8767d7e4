// Every table of every module, gathered for drizzle-kit and the typed client.
// Modules import only their own tables; nothing else should import from here.

export {
  billingAccounts,
  billingInvoiceLines,
  billingInvoices,
  billingOperations,
  billingPaymentMethods,
  billingPayments,
  billingSubscriptions,
} from '../billing/builtin/tables.js';
export { billingIntegrations } from '../billing/tables.js';
export { events } from '../events/tables.js';
export { idempotencyKeys } from '../http/idempotency/tables.js';
export { organizations } from '../modules/accounts/tables.js';
export { apiKeys } from '../modules/api-keys/tables.js';
export { auditLogs } from '../modules/audit/tables.js';
export { cartItems, carts } from '../modules/carts/tables.js';
export {
  offers,
  planChangeRules,
  planLinks,
  priceRules,
  products,
  promotions,
} from '../modules/catalog/tables.js';
export { orderNumberSeq, orders, usageEvents } from '../modules/orders/tables.js';
export { paymentMethods } from '../modules/payment-methods/tables.js';
export { paymentSessions } from '../modules/payments/tables.js';
export { policies } from '../modules/policies/tables.js';
export { providerEvents, providerIntegrations } from '../modules/provider-events/tables.js';
export { shippingOptions } from '../modules/shipping/tables.js';
export { subscriptions } from '../modules/subscriptions/tables.js';
export { tenants } from '../modules/tenants/tables.js';
export { webhookAttempts, webhookDeliveries, webhookSubscriptions } from '../modules/webhooks/tables.js';
