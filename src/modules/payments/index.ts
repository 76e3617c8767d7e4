export { completeSession, createSession, recordCheckoutPayment } from './operations.js';
export {
  commitRefund,
  dropRefund,
  type RefundPlan,
  refundableSessions,
  refundCall,
  reserveRefund,
} from './refund-store.js';
export { refundOperation } from './refunds.js';
export { type FailOutcome, failSession, reverseOperation } from './reversal.js';
export { InvoiceParams } from './schemas.js';
export {
  getSession,
  insertSession,
  isTerminal,
  orderPaymentsRead,
  type PaymentSessionApi,
  presentSession,
} from './service.js';
export { type SettleOutcome, settleOperation, settleSession } from './settlement.js';
export { paymentSessions, refunds } from './tables.js';
