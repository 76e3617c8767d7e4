export * from './model.js';
export {
  cancelCheckout,
  completeCheckout,
  createCheckout,
  delegatePayment,
  getCheckout,
  updateCheckout,
} from './operations.js';
