export * from './adapter.js';
export { FaultController, withFaults } from './faults.js';
export { requireCapability, unwrapBilling } from './http.js';
export { type BillingIntegration, BillingRegistry } from './registry.js';
export * from './schemas.js';
