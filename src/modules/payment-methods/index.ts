export { PaymentMethodSchema } from './schemas.js';
export { getPaymentMethod, localAccountPaymentMethods, type PaymentMethodApi } from './service.js';
