import { CART_CHECKED_OUT, CART_PRICING } from '../../../core/agent-guide.js';
import type { RequestContext } from '../../../http/context.js';
import { type ActionSpec, envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { CartApi } from '../service.js';

export const TAGS = ['Carts'];

export const PRICING = CART_PRICING.text;
export const CHECKED_OUT = CART_CHECKED_OUT.text;

/**
 * What a cart links to: only `self` once it is checked out, `checkout` once it holds items, and
 * `createAccount` while it has no buyer: an order without one is a draft that takes no payment, so
 * the agent learns here that checkout wants an `organizationId`.
 */
export function cartActions(cart: CartApi): ActionSpec[] {
  const self = next('self', 'getCart', { id: cart.id });
  if (cart.status !== 'active') return [self, next('createCart', 'createCart')];
  const ownerless = cart.organizationId === null && cart.contactId === null;
  return [
    self,
    next('addItem', 'addCartItem', { id: cart.id }),
    next('applyPromo', 'applyCartPromo', { id: cart.id }),
    ...(cart.promo ? [next('removePromo', 'removeCartPromo', { id: cart.id })] : []),
    ...(ownerless ? [next('createAccount', 'createAccount')] : []),
    ...(cart.items.length > 0 ? [next('checkout', 'createOrder', { cartId: cart.id })] : []),
  ];
}

/** The cart in its envelope, with `status`. */
export const cartResponse =
  (status: number) =>
  (cart: CartApi, ctx: RequestContext): Presented => ({
    status,
    body: envelope(ctx, cart, cartActions(cart)),
  });
