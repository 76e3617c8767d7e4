import { CART_CHECKED_OUT, CART_PRICING } from '../../core/agent-guide.js';
import { notFound } from '../../core/errors.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { cartCreatedExample, cartItemAddedExample } from '../../http/examples.js';
import { type Presented, respond } from '../../http/operation.js';
import type { TypedApp } from '../../http/types.js';
import { addCartItem, applyCartPromo, createCart, removeCartItem, removeCartPromo } from './operations.js';
import {
  CartCreate,
  CartIdParams,
  CartItemAdd,
  CartItemParams,
  CartPromoApply,
  CartSchema,
} from './schemas.js';
import { type CartApi, getCart } from './service.js';

const TAGS = ['Carts'];
const BASE = '/api/v1/carts';

const PRICING = CART_PRICING.text;
const CHECKED_OUT = CART_CHECKED_OUT.text;

/** What a cart links to: only `self` once it is checked out, `checkout` once it holds items. */
function cartActions(cart: CartApi): ActionSpec[] {
  const path = `/carts/${cart.id}`;
  const self = action('self', 'GET', path, 'read');
  if (cart.status !== 'active') return [self, action('createCart', 'POST', '/carts', 'commerce')];
  return [
    self,
    action('addItem', 'POST', `${path}/items`, 'commerce'),
    action('applyPromo', 'POST', `${path}/promo`, 'commerce'),
    ...(cart.promo ? [action('removePromo', 'DELETE', `${path}/promo`, 'commerce')] : []),
    ...(cart.items.length > 0
      ? [action('checkout', 'POST', '/orders', 'commerce', { cartId: cart.id })]
      : []),
  ];
}

/** The cart in its envelope, with `status`. */
const cartResponse =
  (status: number) =>
  (cart: CartApi, ctx: RequestContext): Presented => ({
    status,
    body: envelope(ctx, cart, cartActions(cart)),
  });

export function registerCartRoutes(app: TypedApp, deps: Deps) {
  app.post(
    BASE,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'createCart',
        summary: 'Create a cart',
        description:
          'Starts an empty `active` cart; every field is optional. Next: its `addItem` action, then `checkout` ' +
          '(POST /orders with `{ "cartId": "<cart id>" }`). Carts are not audited and emit no events.',
        tags: TAGS,
        body: CartCreate,
        response: { 201: Envelope(CartSchema, 'The new, empty cart.', cartCreatedExample) },
      },
    },
    async (request, reply) =>
      respond(
        deps,
        request,
        reply,
        (ctx, key) => createCart(deps, ctx, request.body, key),
        cartResponse(201),
      ),
  );

  app.get(
    `${BASE}/:id`,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getCart',
        summary: 'Get a cart',
        description:
          `The cart as priced at its last change. ${PRICING} While it is \`active\`, its \`checkout\` action is ` +
          'POST /orders with `{ "cartId": "<this cart id>" }`; once `checked_out` only `self` remains.',
        tags: TAGS,
        params: CartIdParams,
        response: { 200: Envelope(CartSchema, 'The cart.', cartItemAddedExample), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const cart = await getCart(deps.db, ctx.tenantId, request.params.id);
      if (!cart) throw notFound('Cart');
      return envelope(ctx, cart, cartActions(cart));
    },
  );

  app.post(
    `${BASE}/:id/items`,
    {
      config: { public: true, scope: 'commerce', createdAt: [{ collection: '/api/v1/carts' }] },
      schema: {
        operationId: 'addCartItem',
        summary: 'Add a product to a cart',
        description:
          'Adds `quantity` of an active product priced in the cart’s currency. A product already in the cart ' +
          'MERGES: its line grows by `quantity` (at most 100000 a line) and is re-priced (tiers apply to the ' +
          `whole line). ${PRICING} 400 \`validation_failed\` naming \`productId\`, rule \`exists\`, \`active\` or ` +
          `\`currency\`. ${CHECKED_OUT} A retry without the same Idempotency-Key adds the quantity again.`,
        tags: TAGS,
        params: CartIdParams,
        body: CartItemAdd,
        response: {
          201: Envelope(CartSchema, 'The updated cart.', cartItemAddedExample),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request, reply) => {
      const input = {
        cartId: request.params.id,
        productId: request.body.productId,
        quantity: request.body.quantity ?? 1,
      };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => addCartItem(deps, ctx, input, key),
        cartResponse(201),
      );
    },
  );

  app.delete(
    `${BASE}/:id/items/:itemId`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'removeCartItem',
        summary: 'Remove a line from a cart',
        description:
          `Removes the whole line (all its units) and re-prices the rest. ${PRICING} 404 unknown item. ` +
          CHECKED_OUT,
        tags: TAGS,
        params: CartItemParams,
        response: {
          200: Envelope(CartSchema, 'The updated cart.', cartItemAddedExample),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request, reply) => {
      const input = { cartId: request.params.id, itemId: request.params.itemId };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => removeCartItem(deps, ctx, input, key),
        cartResponse(200),
      );
    },
  );

  app.post(
    `${BASE}/:id/promo`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'applyCartPromo',
        summary: 'Apply a promotion code to a cart',
        description:
          'Puts a promotion code on the cart, replacing any other. 400 `validation_failed` naming `code`, rule ' +
          '`unknown`, `inactive`, `not_started`, `expired`, `exhausted` (usage limit reached), `minimum_not_met` ' +
          '(total after offers below its minimum) or `currency_mismatch`. The code stays through later changes; ' +
          `its use is counted when the order is created. ${PRICING} ${CHECKED_OUT}`,
        tags: TAGS,
        params: CartIdParams,
        body: CartPromoApply,
        response: {
          200: Envelope(CartSchema, 'The cart with the code applied.'),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request, reply) => {
      const input = { cartId: request.params.id, code: request.body.code };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => applyCartPromo(deps, ctx, input, key),
        cartResponse(200),
      );
    },
  );

  app.delete(
    `${BASE}/:id/promo`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'removeCartPromo',
        summary: 'Remove the promotion code from a cart',
        description:
          'Takes the promotion code off and re-prices the cart; a cart without a code is returned unchanged ' +
          `(200). ${CHECKED_OUT}`,
        tags: TAGS,
        params: CartIdParams,
        response: {
          200: Envelope(CartSchema, 'The cart without a code.', cartItemAddedExample),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request, reply) => {
      const input = { cartId: request.params.id };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => removeCartPromo(deps, ctx, input, key),
        cartResponse(200),
      );
    },
  );
}
