import type { DeclaredRoute } from '../../../http/declared-route.js';
import { getPaymentProviderRoute } from './get-payment-provider.js';
import { putPaymentProviderRoute } from './put-payment-provider.js';
import { simulateProviderEventRoute } from './simulate-provider-event.js';

/** The public admin routes; the provider's callback is internal and registered on its own. */
export const providerEventRoutes: DeclaredRoute[] = [
  getPaymentProviderRoute,
  putPaymentProviderRoute,
  simulateProviderEventRoute,
];
export { registerProviderCallback } from './provider-callback.js';
