import type { DeclaredRoute } from '../../../../http/declared-route.js';
import { checkEntitlementRoute } from './check-entitlement.js';
import { getAccountEntitlementsRoute } from './get-account-entitlements.js';

export const entitlementRoutes: DeclaredRoute[] = [getAccountEntitlementsRoute, checkEntitlementRoute];
