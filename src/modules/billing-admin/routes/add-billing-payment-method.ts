import { BillingPaymentMethodSchema } from '../../../billing/index.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { addBillingPaymentMethod } from '../operations.js';
import { AccountIdParams, AddPaymentMethodBody } from '../schemas.js';
import { paymentMethodResponse, tags } from './shared.js';

export const addBillingPaymentMethodRoute = defineRoute({
  method: 'POST',
  path: '/admin/billing/accounts/:accountId/payment-methods',
  operationId: 'addBillingPaymentMethod',
  summary: 'Add a payment method in the billing engine',
  description:
    'Stores a payment method on a built-in billing account (as a payment provider would); the first one ' +
    'becomes the default. It shows in GET /accounts/{id}/payment-methods with `source: billing`.',
  tags,
  scope: 'admin',
  createdAt: [{ collection: '/api/v1/admin/billing/accounts', id: '$request.path.accountId' }],
  params: AccountIdParams,
  body: AddPaymentMethodBody,
  responses: {
    201: Envelope(BillingPaymentMethodSchema, 'The stored method.'),
    ...errorResponses(404, 502),
  },
  handler: async (request, reply, deps) => {
    const b = request.body;
    const input = {
      accountId: request.params.accountId,
      method: {
        type: b.type ?? 'card',
        cardType: b.cardType ?? null,
        lastFour: b.lastFour ?? '0000',
        expirationMonth: b.expirationMonth ?? null,
        expirationYear: b.expirationYear ?? null,
      },
    };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => addBillingPaymentMethod(deps, ctx, input, key),
      paymentMethodResponse,
    );
  },
});
