export * from './engine.js';
export { registerPricingRoutes } from './routes.js';
export { type PricedLine, priceLines } from './service.js';
