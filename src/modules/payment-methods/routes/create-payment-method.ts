import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { respond } from '../../../http/operation.js';
import { addPaymentMethod } from '../operations.js';
import { CreatePaymentMethodBody, PaymentMethodSchema } from '../schemas.js';
import { methodResponse, TAGS } from './shared.js';

export const createPaymentMethodRoute = defineRoute({
  method: 'POST',
  path: '/payment-methods',
  operationId: 'createPaymentMethod',
  summary: 'Add a payment-method reference',
  description:
    'Stores a local reference to a payment method held by the payment provider (never a card number). The ' +
    'account’s first reference becomes its default (`isDefault: true`); later ones only through the ' +
    '`setDefault` action. Listed by GET /accounts/{accountId}/payment-methods with `source: "local"`.',
  tags: TAGS,
  scope: 'commerce',
  body: CreatePaymentMethodBody,
  responses: { 201: Envelope(PaymentMethodSchema, 'The stored reference.') },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => addPaymentMethod(deps, ctx, request.body, key),
      methodResponse(201),
    ),
});
