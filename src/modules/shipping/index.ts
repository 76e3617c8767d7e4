export { registerShippingRoutes, shippingOptionCrud } from './routes.js';
export { type AvailabilityFilter, availableShippingOptions, type ShippingOptionApi } from './service.js';
