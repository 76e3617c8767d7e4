import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { PaymentMethodParams, PaymentMethodSchema } from '../schemas.js';
import { getPaymentMethod } from '../service.js';
import { methodActions, TAGS } from './shared.js';

export const getPaymentMethodRoute = defineRoute({
  method: 'GET',
  path: '/payment-methods/:id',
  operationId: 'getPaymentMethod',
  summary: 'Get a payment-method reference',
  description: 'One local payment-method reference of this tenant.',
  tags: TAGS,
  scope: 'read',
  params: PaymentMethodParams,
  responses: { 200: Envelope(PaymentMethodSchema, 'The reference.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const method = await getPaymentMethod(deps.db, ctx.tenantId, request.params.id);
    if (!method) throw notFound('Payment method');
    return envelope(ctx, method, methodActions(method));
  },
});
