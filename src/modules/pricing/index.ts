export * from './engine.js';
export { registerPricingRoutes } from './routes.js';
export { type PricedLine, priceLines, priceLinesWith } from './service.js';
