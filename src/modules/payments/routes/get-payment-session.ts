import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { PaymentSessionSchema, SessionParams } from '../schemas.js';
import { getSession, presentSession } from '../service.js';
import { paymentSessionCompletedExample } from './complete-payment-session.js';
import { sessionActions, TAGS } from './shared.js';

export const getPaymentSessionRoute = defineRoute({
  method: 'GET',
  path: '/payments/:id',
  operationId: 'getPaymentSession',
  summary: 'Get a payment session',
  description: 'One payment session of this tenant.',
  tags: TAGS,
  scope: 'read',
  params: SessionParams,
  responses: {
    200: Envelope(PaymentSessionSchema, 'The session.', paymentSessionCompletedExample),
    ...errorResponses(404),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const row = await getSession(deps.db, ctx.tenantId, request.params.id);
    if (!row) throw notFound('Payment session');
    const session = presentSession(row);
    return envelope(ctx, session, sessionActions(session));
  },
});
