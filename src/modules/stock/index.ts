export { StockedProductSchema, stockedProductCrud, stockOfProducts } from './crud.js';
export {
  moveOrderStock,
  type OrderStockMove,
  reserveStock,
  reserveStockIfClear,
  type StockLine,
  stockLinesOf,
} from './movements.js';
export { planRestock, type RestockAsk, type RestockLine, restockOrder } from './restock.js';
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
