export { CartSchema } from './schemas.js';
export {
  type CartApi,
  type CheckoutCart,
  getCart,
  lockCartForCheckout,
  markCartCheckedOut,
} from './service.js';
