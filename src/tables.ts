// Every table of every module, gathered: for drizzle-kit (drizzle.schema.ts re-exports this file)
// and for their layout (src/schema.ts). A table is declared in its module's tables.ts with its
// traits (src/db/table-traits.ts); a tables.ts is listed here once, and everything it exports is
// re-exported (only tables are read as tables).

export * from './billing/builtin/tables.js';
export * from './billing/tables.js';
export * from './events/tables.js';
export * from './http/idempotency/tables.js';
export * from './modules/accounts/tables.js';
export * from './modules/api-keys/tables.js';
export * from './modules/carts/tables.js';
export * from './modules/catalog/tables.js';
export * from './modules/checkout-sessions/tables.js';
export * from './modules/content/tables.js';
export * from './modules/credits/tables.js';
export * from './modules/orders/tables.js';
export * from './modules/partners/tables.js';
export * from './modules/payment-methods/tables.js';
export * from './modules/payments/tables.js';
export * from './modules/policies/tables.js';
export * from './modules/product-content/tables.js';
export * from './modules/provider-events/tables.js';
export * from './modules/seller/tables.js';
export * from './modules/shipping/tables.js';
export * from './modules/stock/tables.js';
export * from './modules/subscriptions/tables.js';
export * from './modules/team/tables.js';
export * from './modules/tenants/tables.js';
export * from './modules/webhooks/tables.js';
export * from './unit-of-work/tables.js';
