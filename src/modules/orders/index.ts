export { getOrder, type OrderApi, recordOrderUsage } from './service.js';
