import { adminCrudRoutes } from '../../../http/admin-crud.js';
import type { DeclaredRoute } from '../../../http/declared-route.js';
import { policyCrud } from '../crud.js';

export const policyRoutes: DeclaredRoute[] = adminCrudRoutes(policyCrud);
