export { registerDiscoveryRoutes } from './routes.js';
