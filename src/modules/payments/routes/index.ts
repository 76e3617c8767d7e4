import type { DeclaredRoute } from '../../../http/declared-route.js';
import { completePaymentSessionRoute } from './complete-payment-session.js';
import { createPaymentSessionRoute } from './create-payment-session.js';
import { createRefundRoute } from './create-refund.js';
import { getPaymentSessionRoute } from './get-payment-session.js';
import { getRefundRoute } from './get-refund.js';
import { listPaymentSessionsRoute } from './list-payment-sessions.js';
import { listRefundsRoute } from './list-refunds.js';
import { payInvoiceRoute } from './pay-invoice.js';

export { paymentSessionTagTarget } from './shared.js';

export const paymentRoutes: DeclaredRoute[] = [
  createPaymentSessionRoute,
  payInvoiceRoute,
  listPaymentSessionsRoute,
  getPaymentSessionRoute,
  completePaymentSessionRoute,
];
export const refundRoutes: DeclaredRoute[] = [createRefundRoute, listRefundsRoute, getRefundRoute];
