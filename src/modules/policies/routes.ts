import { registerAdminCrud } from '../../http/admin-crud.js';
import type { Deps } from '../../http/deps.js';
import type { TypedApp } from '../../http/types.js';
import { policyCrud } from './crud.js';

export function registerPolicyRoutes(app: TypedApp, deps: Deps) {
  registerAdminCrud(app, deps, policyCrud);
}
