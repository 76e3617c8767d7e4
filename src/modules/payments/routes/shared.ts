import type { RequestContext } from '../../../http/context.js';
import { type ActionSpec, envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { TagTarget } from '../../../http/tag-routes.js';
import { PaymentSessionSchema } from '../schemas.js';
import {
  isTerminal,
  type NewSession,
  type PaymentSessionApi,
  type PaymentSessionRow,
  presentSession,
} from '../service.js';
import { paymentSessionTags } from '../tags.js';

export const TAGS = ['Payments'];

export function sessionActions(s: PaymentSessionApi): ActionSpec[] {
  return [
    next('self', 'getPaymentSession', { id: s.id }),
    ...(isTerminal(s.status) ? [] : [next('complete', 'completePaymentSession', { id: s.id })]),
    ...(s.orderId ? [next('order', 'getOrder', { id: s.orderId })] : []),
    ...(s.status === 'success' && !s.reversal && s.refundedCents < s.amountCents
      ? [next('refund', 'createRefund', { id: s.id, reason: 'requested_by_customer' })]
      : []),
    // Only a session paying an invoice is known to have a billing account to list invoices of.
    ...(s.invoiceId ? [next('accountInvoices', 'listAccountInvoices', { id: s.accountId })] : []),
  ];
}

export const sessionInput = (
  b: { accountId: string; amountCents: number; currency: string; paymentPageSlug?: string; orderId?: string },
  invoiceId: string | null,
): NewSession => ({
  accountId: b.accountId,
  amountCents: b.amountCents,
  currency: b.currency,
  invoiceId,
  orderId: b.orderId ?? null,
  paymentPageSlug: b.paymentPageSlug ?? null,
});

/** The session in its envelope, with `status`. */
export const sessionResponse =
  (status: number) =>
  (session: PaymentSessionApi, ctx: RequestContext): Presented => ({
    status,
    body: envelope(ctx, session, sessionActions(session)),
  });

/** Tags of payment sessions, in any status (a tag changes no money). */
export const paymentSessionTagTarget = (): TagTarget<PaymentSessionRow> => ({
  resource: 'payments',
  schema: PaymentSessionSchema,
  operations: paymentSessionTags,
  presenter: () => (row, ctx) => sessionResponse(200)(presentSession(row), ctx),
});
