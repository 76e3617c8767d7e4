import { adminCrudRoutes } from '../../../http/admin-crud.js';
import type { DeclaredRoute } from '../../../http/declared-route.js';
import type { AnyCrudSpec } from '../../../unit-of-work/index.js';
import { catalogCrudSpecs, productCrud } from '../crud.js';
import type { ProductUpdated } from './shared.js';

export type { ProductUpdated } from './shared.js';

/**
 * Admin endpoints for the catalog: products, price rules, offers, promotions, plan links and rules.
 * The composition root may give the product resource as a module above shows it (with its stock,
 * `product`) and what an update does beside the catalog (`productUpdated`).
 */
export const catalogAdminRoutes = (
  productUpdated?: ProductUpdated,
  product: AnyCrudSpec = productCrud,
): DeclaredRoute[] =>
  catalogCrudSpecs.flatMap((spec) => {
    if (spec !== productCrud) return adminCrudRoutes(spec);
    return adminCrudRoutes(productUpdated ? { ...product, afterUpdate: productUpdated } : product);
  });
