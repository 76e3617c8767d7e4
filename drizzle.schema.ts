// Every table of every module, gathered for drizzle-kit (npm run db:generate).
// Nothing in src/ imports this file: modules import their own tables.

export {
  billingAccounts,
  billingInvoiceLines,
  billingInvoices,
  billingOperations,
  billingPaymentMethods,
  billingPayments,
  billingRefunds,
  billingSubscriptions,
} from './src/billing/builtin/tables.js';
export { billingIntegrations } from './src/billing/tables.js';
export { events } from './src/events/tables.js';
export { idempotencyKeys } from './src/http/idempotency/tables.js';
export { organizations } from './src/modules/accounts/tables.js';
export { apiKeys } from './src/modules/api-keys/tables.js';
export { cartItems, carts } from './src/modules/carts/tables.js';
export {
  offers,
  planChangeRules,
  planLinks,
  priceRules,
  products,
  promotions,
} from './src/modules/catalog/tables.js';
export { creditEntries } from './src/modules/credits/tables.js';
export { orderNumberSeq, orders, usageEvents } from './src/modules/orders/tables.js';
export { paymentMethods } from './src/modules/payment-methods/tables.js';
export { paymentSessions, refunds } from './src/modules/payments/tables.js';
export { policies } from './src/modules/policies/tables.js';
export { providerEvents, providerIntegrations } from './src/modules/provider-events/tables.js';
export { shippingOptions } from './src/modules/shipping/tables.js';
export { subscriptions } from './src/modules/subscriptions/tables.js';
export { tenants } from './src/modules/tenants/tables.js';
export { webhookAttempts, webhookDeliveries, webhookSubscriptions } from './src/modules/webhooks/tables.js';
export { auditLogs, intents } from './src/unit-of-work/tables.js';
