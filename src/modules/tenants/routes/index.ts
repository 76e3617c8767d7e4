import type { DeclaredRoute } from '../../../http/declared-route.js';
import { getTenantSettingsRoute } from './get-tenant-settings.js';
import { updateTenantSettingsRoute } from './update-tenant-settings.js';

export const tenantRoutes: DeclaredRoute[] = [getTenantSettingsRoute, updateTenantSettingsRoute];
