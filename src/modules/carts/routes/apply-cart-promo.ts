import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { applyCartPromo } from '../operations.js';
import { CartIdParams, CartPromoApply, CartSchema } from '../schemas.js';
import { CHECKED_OUT, cartResponse, PRICING, TAGS } from './shared.js';

export const applyCartPromoRoute = defineRoute({
  method: 'POST',
  path: '/carts/:id/promo',
  operationId: 'applyCartPromo',
  summary: 'Apply a promotion code to a cart',
  description:
    'Puts a promotion code on the cart, replacing any other. 400 `validation_failed` naming `code`, rule ' +
    '`unknown`, `inactive`, `not_started`, `expired`, `exhausted` (usage limit reached), `minimum_not_met` ' +
    '(total after offers below its minimum) or `currency_mismatch`. The code stays through later changes; ' +
    `its use is counted when the order is created. ${PRICING} ${CHECKED_OUT}`,
  tags: TAGS,
  scope: 'commerce',
  params: CartIdParams,
  body: CartPromoApply,
  responses: {
    200: Envelope(CartSchema, 'The cart with the code applied.'),
    ...errorResponses(404, 409),
  },
  handler: async (request, reply, deps) => {
    const input = { cartId: request.params.id, code: request.body.code };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => applyCartPromo(deps, ctx, input, key),
      cartResponse(200),
    );
  },
});
