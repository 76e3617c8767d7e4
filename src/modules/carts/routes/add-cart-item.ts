import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { addCartItem } from '../operations.js';
import { CartIdParams, CartItemAdd, CartSchema } from '../schemas.js';
import { cartActionsExample, cartCreatedExample } from './create-cart.js';
import { CHECKED_OUT, cartResponse, PRICING, TAGS } from './shared.js';

export const cartItemAddedExample = {
  data: {
    ...cartCreatedExample.data,
    items: [
      {
        id: '0190b000-0000-7000-8000-000000000007',
        productId: '0190b000-0000-7000-8000-000000000003',
        productName: 'Onboarding workshop',
        productType: 'one_time',
        quantity: 2,
        unitPriceCents: 2500,
        totalCents: 5000,
        listCents: 5000,
        charges: [
          {
            chargeId: '0190b000-0000-7000-8000-000000000004',
            name: 'Seat',
            kind: 'modeled',
            chargeModel: 'per_unit',
            amountCents: 5000,
          },
        ],
        appliedOffers: [],
        appliedPriceRules: [],
        requiresQuote: false,
      },
    ],
    subtotalCents: 5000,
    totalCents: 5000,
  },
  nextActions: cartActionsExample,
};

export const addCartItemRoute = defineRoute({
  method: 'POST',
  path: '/carts/:id/items',
  operationId: 'addCartItem',
  summary: 'Add a product to a cart',
  description:
    'Adds `quantity` of an active product priced in the cart’s currency. A product already in the cart ' +
    'MERGES: its line grows by `quantity` (at most 100000 a line) and is re-priced (tiers apply to the ' +
    `whole line). ${PRICING} 400 \`validation_failed\` naming \`productId\`, rule \`exists\`, \`active\` or ` +
    `\`currency\`. ${CHECKED_OUT} A retry without the same Idempotency-Key adds the quantity again.`,
  tags: TAGS,
  scope: 'commerce',
  createdAt: [{ collection: '/api/v1/carts' }],
  params: CartIdParams,
  body: CartItemAdd,
  responses: {
    201: Envelope(CartSchema, 'The updated cart.', cartItemAddedExample),
    ...errorResponses(404, 409),
  },
  handler: async (request, reply, deps) => {
    const input = {
      cartId: request.params.id,
      productId: request.body.productId,
      quantity: request.body.quantity ?? 1,
    };
    return respond(deps, request, reply, (ctx, key) => addCartItem(deps, ctx, input, key), cartResponse(201));
  },
});
