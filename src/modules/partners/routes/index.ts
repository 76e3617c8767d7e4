import { adminCrudRoutes } from '../../../http/admin-crud.js';
import type { DeclaredRoute } from '../../../http/declared-route.js';
import { partnerCrud } from '../crud.js';

export const partnerRoutes: DeclaredRoute[] = adminCrudRoutes(partnerCrud);
