export { moveOrderStock, reserveStock, type StockLine, stockLinesOf } from './movements.js';
export { availabilityOf, type ProductStockApi, stockShortfalls, trackedProductsRead } from './service.js';
