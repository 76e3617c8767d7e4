export { type CompleteInput, completeCheckout } from './complete.js';
export * from './model.js';
export {
  type CreateCheckoutInput,
  cancelCheckout,
  createCheckout,
  delegatePayment,
  getCheckout,
  updateCheckout,
} from './operations.js';
export { sessionCountsByStatus } from './service.js';
export { checkoutSessions } from './tables.js';
// A placed order's later changes, told to the UCP platform that placed it (ServiceDeps.orderChanged).
export { queueOrderUpdated } from './ucp/order-webhooks.js';
