export { createTenant, getTenant, hasAnyTenant, listTenants, type Tenant } from './service.js';
