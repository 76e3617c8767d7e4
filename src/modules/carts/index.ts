export { type CheckoutCart, checkOutCart, readCartForCheckout } from './checkout.js';
export { CartSchema } from './schemas.js';
export { type CartApi, cartCheckedOut, getCart } from './service.js';
export { type CartContents, type ContentProblem, setCartContents } from './contents.js';
export { insertCart } from './service.js';
