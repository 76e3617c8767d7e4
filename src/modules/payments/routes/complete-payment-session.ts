import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { completeSession } from '../operations.js';
import { CompleteSessionBody, PaymentSessionSchema, SessionParams } from '../schemas.js';
import type { SettleOutcome } from '../settlement.js';
import { paymentSessionCreatedExample } from './create-payment-session.js';
import { sessionResponse, TAGS } from './shared.js';

export const paymentSessionCompletedExample = {
  data: { ...paymentSessionCreatedExample.data, status: 'success' },
  nextActions: paymentSessionCreatedExample.nextActions.filter((a) => a.rel !== 'complete'),
};

export const completePaymentSessionRoute = defineRoute({
  method: 'POST',
  path: '/payments/:id/complete',
  operationId: 'completePaymentSession',
  summary: 'Complete a payment session',
  description:
    'Force-marks the session `success`: only with external proof of payment (see `proof`). A terminal ' +
    'session is 400 `session_terminal`. A session paying an invoice first settles it in the billing system; ' +
    'if that fails (502 outage, 409 refused) nothing changes, and a retry with the same Idempotency-Key ' +
    'completes it without settling twice. Emits `payment.succeeded`, and `invoice.paid` once the invoice is ' +
    'fully paid.',
  tags: TAGS,
  scope: 'commerce',
  params: SessionParams,
  body: CompleteSessionBody,
  responses: {
    200: Envelope(PaymentSessionSchema, 'The completed session.', paymentSessionCompletedExample),
    ...errorResponses(404, 502),
  },
  handler: async (request, reply, deps) => {
    const input = { sessionId: request.params.id, proof: request.body?.proof };
    return respond<SettleOutcome>(
      deps,
      request,
      reply,
      (ctx, key) => completeSession(deps, ctx, input, key),
      (outcome: SettleOutcome, ctx) => sessionResponse(200)(outcome.session, ctx),
    );
  },
});
