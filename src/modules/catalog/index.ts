export { planChangeRulesOf, planLinksBetween } from './plans.js';
export {
  activeProducts,
  type ProductApi,
  type ProductRow,
  presentProduct,
  productsByIds,
} from './products.js';
export {
  catalogCrudSpecs,
  productCrud,
  registerCatalogAdminRoutes,
  registerCatalogRoutes,
} from './routes.js';
export { offersFor, priceRulesFor, promotionByCode, redeemPromotion } from './rules.js';
export { ProductSchema } from './schemas.js';
