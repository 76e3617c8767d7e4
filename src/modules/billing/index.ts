export { registerBillingAdminRoutes } from './routes.js';
