export { type PricedLine, priceLines, priceLinesWith } from './service.js';
