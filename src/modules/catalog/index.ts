export {
  activeProducts,
  type ProductApi,
  type ProductRow,
  presentProduct,
  productsByIds,
} from './products.js';
export { registerCatalogAdminRoutes } from './routes.js';
