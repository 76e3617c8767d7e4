import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { CartIdParams, CartSchema } from '../schemas.js';
import { getCart } from '../service.js';
import { cartItemAddedExample } from './add-cart-item.js';
import { cartActions, PRICING, TAGS } from './shared.js';

export const getCartRoute = defineRoute({
  method: 'GET',
  path: '/carts/:id',
  operationId: 'getCart',
  summary: 'Get a cart',
  description:
    `The cart as priced at its last change. ${PRICING} While it is \`active\`, its \`checkout\` action is ` +
    'POST /orders with `{ "cartId": "<this cart id>" }`; once `checked_out` only `self` remains.',
  tags: TAGS,
  scope: 'read',
  params: CartIdParams,
  responses: { 200: Envelope(CartSchema, 'The cart.', cartItemAddedExample), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const cart = await getCart(deps.db, ctx.tenantId, request.params.id);
    if (!cart) throw notFound('Cart');
    return envelope(ctx, cart, cartActions(cart));
  },
});
