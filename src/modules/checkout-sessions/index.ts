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
