export { moveOrderStock, reserveStock, type StockLine, stockLinesOf } from './movements.js';
export {
  availabilityOf,
  type ProductStockApi,
  type StockLevel,
  stockLevelsRead,
  trackedProductsRead,
} from './service.js';
