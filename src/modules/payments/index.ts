export { registerPaymentRoutes } from './routes.js';
export {
  getSession,
  insertSession,
  isTerminal,
  type PaymentSessionApi,
  presentSession,
  resolveSession,
  settleSessionInvoice,
} from './service.js';
