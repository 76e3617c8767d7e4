export { shippingOptionCrud } from './crud.js';
export { type AvailabilityFilter, availableShippingOptions, type ShippingOptionApi } from './service.js';
