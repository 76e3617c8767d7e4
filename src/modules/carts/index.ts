export { type CheckoutCart, checkOutCart, readCartForCheckout } from './checkout.js';
export { CartSchema } from './schemas.js';
export { type CartApi, cartCheckedOut, getCart } from './service.js';
