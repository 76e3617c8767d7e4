export {
  createTenant,
  getTenant,
  hasAnyTenant,
  LOCALE_PATTERN,
  listTenants,
  type Tenant,
  updateTenantSettings,
} from './service.js';
export { tenants } from './tables.js';
