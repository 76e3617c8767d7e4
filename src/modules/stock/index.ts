export { moveOrderStock, reserveStock, type StockLine, stockLinesOf } from './movements.js';
export { availabilityOf, type ProductStockApi, trackedProductsRead } from './service.js';
