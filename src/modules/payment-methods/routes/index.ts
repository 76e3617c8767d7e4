import type { DeclaredRoute } from '../../../http/declared-route.js';
import { createPaymentMethodRoute } from './create-payment-method.js';
import { getPaymentMethodRoute } from './get-payment-method.js';
import { setDefaultPaymentMethodRoute } from './set-default-payment-method.js';

export const paymentMethodRoutes: DeclaredRoute[] = [
  createPaymentMethodRoute,
  getPaymentMethodRoute,
  setDefaultPaymentMethodRoute,
];
