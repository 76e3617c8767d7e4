import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { createSession } from '../operations.js';
import { InvoiceParams, PayInvoiceBody, PaymentSessionSchema } from '../schemas.js';
import { paymentSessionCreatedExample } from './create-payment-session.js';
import { sessionInput, sessionResponse, TAGS } from './shared.js';

export const payInvoiceRoute = defineRoute({
  method: 'POST',
  path: '/invoices/:id/pay',
  operationId: 'payInvoice',
  summary: 'Pay an invoice',
  description:
    'POST /payments with the `invoiceId` of the path: a payment session for the invoice (400 when the ' +
    'billing system does not know it, 409 when not open or in another currency).',
  tags: TAGS,
  scope: 'commerce',
  createdAt: [{ collection: '/api/v1/payments' }],
  params: InvoiceParams,
  body: PayInvoiceBody,
  responses: {
    201: Envelope(PaymentSessionSchema, 'The session, pending.', paymentSessionCreatedExample),
    ...errorResponses(502),
  },
  handler: async (request, reply, deps) => {
    const input = sessionInput(request.body, request.params.id);
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => createSession(deps, ctx, input, key),
      sessionResponse(201),
    );
  },
});
