export { saveIntegration } from './integration.js';
export { registerBillingAdminRoutes } from './routes.js';
