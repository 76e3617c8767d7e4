import type { RequestContext } from '../../../http/context.js';
import { type ActionSpec, envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { RefundApi } from '../refund-store.js';

export const TAGS = ['Payments'];

export const refundActions = (r: RefundApi): ActionSpec[] => [
  next('self', 'getRefund', { id: r.id }),
  next('payment', 'getPaymentSession', { id: r.paymentSessionId }),
];

export const refundResponse = (refund: RefundApi, ctx: RequestContext): Presented => ({
  status: 201,
  body: envelope(ctx, refund, refundActions(refund)),
});
