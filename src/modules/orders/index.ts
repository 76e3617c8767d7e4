export { registerOrderRoutes } from './routes.js';
export { type OrderApi, recordOrderUsage } from './service.js';
