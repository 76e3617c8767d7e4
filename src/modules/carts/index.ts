export { type CheckoutCart, checkOutCart, readCartForCheckout } from './checkout.js';
export { type CartContents, type ContentProblem, setCartContents } from './contents.js';
export { CartSchema } from './schemas.js';
export { type CartApi, cartCheckedOut, cartHeader, getCart, insertCartRow } from './service.js';
export type { CartRow } from './tables.js';
