import { type ActionSpec, next } from '../../core/actions.js';

/** The cart a caller named (`cartId`), as far as the actions need it. */
export interface NamedCart {
  id: string;
  currency: string;
  /** Whether it still takes items (not checked out). */
  active: boolean;
}

/**
 * How a buyer gets a product, as actions with the product already filled in, so an agent goes
 * from a catalog or product result to a cart holding it without carrying ids: `addCartItem` into
 * the cart the caller named, else `createCart` with the product as its first line (in the
 * product's currency, since a cart takes only products priced in its own). Nothing for a product
 * the named cart cannot take (another currency); a new cart when the named one is checked out or
 * unknown.
 */
export function buyActions(product: { id: string; currency: string }, cart?: NamedCart): ActionSpec[] {
  const line = { productId: product.id, quantity: 1 };
  if (cart?.active) {
    return cart.currency === product.currency
      ? [next('addCartItem', 'addCartItem', { id: cart.id, ...line })]
      : [];
  }
  return [next('createCart', 'createCart', { currency: product.currency, items: [line] })];
}
