import { adminCrudRoutes } from '../../../http/admin-crud.js';
import type { DeclaredRoute } from '../../../http/declared-route.js';
import { catalogCrudSpecs, productCrud } from '../crud.js';
import type { ProductUpdated } from './shared.js';

export type { ProductUpdated } from './shared.js';

/** Admin endpoints for the catalog: products, price rules, offers, promotions, plan links and rules. */
export const catalogAdminRoutes = (productUpdated?: ProductUpdated): DeclaredRoute[] =>
  catalogCrudSpecs.flatMap((spec) =>
    adminCrudRoutes(
      spec === productCrud && productUpdated ? { ...productCrud, afterUpdate: productUpdated } : spec,
    ),
  );
