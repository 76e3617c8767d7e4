export { orderOperation, placeOrder } from './create.js';
export {
  moveOrderMoney,
  orderFollowsInvoice,
  orderOfInvoice,
  paymentStatusOf,
} from './payment-state.js';
export { type CheckoutPlacement, type OrderPlan, planOrder } from './plan.js';
export { getOrder, type OrderApi, type OrderRow, recordOrderUsage } from './service.js';
export type { OrderShipping } from './tables.js';
export { orders } from './tables.js';
