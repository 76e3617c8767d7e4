export { type CheckoutCart, cartCheckedOut, checkOutCart, readCartForCheckout } from './checkout.js';
export { CartSchema } from './schemas.js';
export { type CartApi, getCart } from './service.js';
