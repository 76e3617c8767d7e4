export { orderOperation } from './create.js';
export {
  moveOrderMoney,
  orderFollowsInvoice,
  orderOfInvoice,
  paymentStatusOf,
} from './payment-state.js';
export { getOrder, type OrderApi, type OrderRow, recordOrderUsage } from './service.js';
