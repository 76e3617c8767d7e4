import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { removeCartItem } from '../operations.js';
import { CartItemParams, CartSchema } from '../schemas.js';
import { cartItemAddedExample } from './add-cart-item.js';
import { CHECKED_OUT, cartResponse, PRICING, TAGS } from './shared.js';

export const removeCartItemRoute = defineRoute({
  method: 'DELETE',
  path: '/carts/:id/items/:itemId',
  operationId: 'removeCartItem',
  summary: 'Remove a line from a cart',
  description:
    `Removes the whole line (all its units) and re-prices the rest. ${PRICING} 404 unknown item. ` +
    CHECKED_OUT,
  tags: TAGS,
  scope: 'commerce',
  params: CartItemParams,
  responses: {
    200: Envelope(CartSchema, 'The updated cart.', cartItemAddedExample),
    ...errorResponses(404, 409),
  },
  handler: async (request, reply, deps) => {
    const input = { cartId: request.params.id, itemId: request.params.itemId };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => removeCartItem(deps, ctx, input, key),
      cartResponse(200),
    );
  },
});
