export { registerOrderRoutes } from './routes.js';
export { getOrder, type OrderApi, recordOrderUsage } from './service.js';
