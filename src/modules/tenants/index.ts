export { registerTenantRoutes } from './routes.js';
export {
  createTenant,
  getTenant,
  hasAnyTenant,
  listTenants,
  type Tenant,
  updateTenantSettings,
} from './service.js';
