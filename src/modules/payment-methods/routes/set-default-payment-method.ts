import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { makeDefaultPaymentMethod } from '../operations.js';
import { PaymentMethodParams, PaymentMethodSchema } from '../schemas.js';
import { methodResponse, TAGS } from './shared.js';

export const setDefaultPaymentMethodRoute = defineRoute({
  method: 'POST',
  path: '/payment-methods/:id/set-default',
  operationId: 'setDefaultPaymentMethod',
  summary: 'Make a payment-method reference the default',
  description:
    'Makes this reference its account’s only local default, also under concurrent calls (the last one ' +
    'wins). On the current default it changes nothing (200). No body.',
  tags: TAGS,
  scope: 'commerce',
  params: PaymentMethodParams,
  responses: {
    200: Envelope(PaymentMethodSchema, 'The reference, now the default.'),
    ...errorResponses(404),
  },
  handler: async (request, reply, deps) => {
    const input = { methodId: request.params.id };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => makeDefaultPaymentMethod(deps, ctx, input, key),
      methodResponse(200),
    );
  },
});
