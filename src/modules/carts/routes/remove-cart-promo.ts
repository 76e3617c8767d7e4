import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { removeCartPromo } from '../operations.js';
import { CartIdParams, CartSchema } from '../schemas.js';
import { cartItemAddedExample } from './add-cart-item.js';
import { CHECKED_OUT, cartResponse, TAGS } from './shared.js';

export const removeCartPromoRoute = defineRoute({
  method: 'DELETE',
  path: '/carts/:id/promo',
  operationId: 'removeCartPromo',
  summary: 'Remove the promotion code from a cart',
  description:
    'Takes the promotion code off and re-prices the cart; a cart without a code is returned unchanged ' +
    `(200). ${CHECKED_OUT}`,
  tags: TAGS,
  scope: 'commerce',
  params: CartIdParams,
  responses: {
    200: Envelope(CartSchema, 'The cart without a code.', cartItemAddedExample),
    ...errorResponses(404, 409),
  },
  handler: async (request, reply, deps) => {
    const input = { cartId: request.params.id };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => removeCartPromo(deps, ctx, input, key),
      cartResponse(200),
    );
  },
});
