export {
  getSession,
  insertSession,
  isTerminal,
  type PaymentSessionApi,
  presentSession,
  resolveSession,
  settleSessionInvoice,
} from './service.js';
