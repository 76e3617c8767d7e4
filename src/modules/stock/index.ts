export {
  moveOrderStock,
  reserveStock,
  reserveStockIfClear,
  type StockLine,
  stockLinesOf,
} from './movements.js';
export { AVAILABILITIES } from './schemas.js';
export {
  type Availability,
  availabilityOf,
  availabilitySql,
  type ProductStockApi,
  type StockLevel,
  stockLevelsRead,
  trackedProductsRead,
} from './service.js';
