export {
  createTenant,
  getTenant,
  hasAnyTenant,
  listTenants,
  type Tenant,
  updateTenantSettings,
} from './service.js';
export { tenants } from './tables.js';
