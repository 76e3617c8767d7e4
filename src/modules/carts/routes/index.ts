import type { DeclaredRoute } from '../../../http/declared-route.js';
import { addCartItemRoute } from './add-cart-item.js';
import { applyCartPromoRoute } from './apply-cart-promo.js';
import { createCartRoute } from './create-cart.js';
import { getCartRoute } from './get-cart.js';
import { removeCartItemRoute } from './remove-cart-item.js';
import { removeCartPromoRoute } from './remove-cart-promo.js';

export const cartRoutes: DeclaredRoute[] = [
  createCartRoute,
  getCartRoute,
  addCartItemRoute,
  removeCartItemRoute,
  applyCartPromoRoute,
  removeCartPromoRoute,
];
