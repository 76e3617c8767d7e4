import type { DeclaredRoute } from '../../../http/declared-route.js';
import { getProductStockRoute } from './get-product-stock.js';
import { setProductStockRoute } from './set-product-stock.js';

export const stockRoutes: DeclaredRoute[] = [getProductStockRoute, setProductStockRoute];
