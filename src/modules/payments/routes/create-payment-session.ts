import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { createSession } from '../operations.js';
import { CreatePaymentBody, PaymentSessionSchema } from '../schemas.js';
import { sessionInput, sessionResponse, TAGS } from './shared.js';

/** A create recorded from the real route (ids replaced by fixed ones). */
export const paymentSessionCreatedExample = {
  data: {
    id: '0190b000-0000-7000-8000-000000000009',
    tenantId: '0190b000-0000-7000-8000-000000000001',
    accountId: '0190b000-0000-7000-8000-000000000005',
    amountCents: 5000,
    currency: 'USD',
    status: 'pending',
    invoiceId: 'in_3h5j7l9n1q3s5u7w9y1a',
    orderId: '0190b000-0000-7000-8000-000000000008',
    paymentPageSlug: null,
    refundedCents: 0,
    reversal: null,
    tags: {},
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
  },
  nextActions: [
    {
      rel: 'self',
      method: 'GET',
      href: '/api/v1/payments/0190b000-0000-7000-8000-000000000009',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'complete',
      method: 'POST',
      href: '/api/v1/payments/0190b000-0000-7000-8000-000000000009/complete',
      requiredScope: 'commerce',
      allowed: true,
    },
    {
      rel: 'accountInvoices',
      method: 'GET',
      href: '/api/v1/accounts/0190b000-0000-7000-8000-000000000005/invoices',
      requiredScope: 'read',
      allowed: true,
    },
  ],
};

export const createPaymentSessionRoute = defineRoute({
  method: 'POST',
  path: '/payments',
  operationId: 'createPaymentSession',
  summary: 'Create a payment session',
  description:
    'Records the intent to pay `amountCents`; money moves at the payment provider. With `invoiceId` it pays ' +
    'that invoice (unknown: 400 naming `invoiceId`; not open or another currency: 409). ' +
    'With `orderId` it pays that order; open sessions covering the rest are 409 `conflict`. ' +
    'Emits `payment.session_created`. Complete it with POST /payments/{id}/complete, or let the provider ' +
    'report the outcome.',
  tags: TAGS,
  scope: 'commerce',
  body: CreatePaymentBody,
  responses: {
    201: Envelope(PaymentSessionSchema, 'The session, pending.', paymentSessionCreatedExample),
    ...errorResponses(502),
  },
  handler: async (request, reply, deps) => {
    const input = sessionInput(request.body, request.body.invoiceId ?? null);
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => createSession(deps, ctx, input, key),
      sessionResponse(201),
    );
  },
});
