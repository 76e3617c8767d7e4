export { buyActions, type NamedCart } from './buy-actions.js';
export { catalogCrudSpecs, productCrud } from './crud.js';
export { planChangeRulesOf, planLinksBetween } from './plans.js';
export * from './price-engine/index.js';
export { type PricingData, pricingDataFor, pricingDataRead } from './pricing-data.js';
export {
  activeProductIdsAfter,
  activeProducts,
  type ProductApi,
  type ProductRow,
  presentProduct,
} from './products.js';
export { promotionByCode, redeemPromotion } from './rules.js';
export { ProductSchema } from './schemas.js';
export { PRODUCT_SEARCH_TEXT } from './tables.js';
