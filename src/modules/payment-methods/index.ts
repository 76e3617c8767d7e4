export { registerPaymentMethodRoutes } from './routes.js';
export { PaymentMethodSchema } from './schemas.js';
export { getPaymentMethod, localAccountPaymentMethods, type PaymentMethodApi } from './service.js';
