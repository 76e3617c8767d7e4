import { adminCrudRoutes } from '../../../http/admin-crud.js';
import type { DeclaredRoute } from '../../../http/declared-route.js';
import { shippingOptionCrud } from '../crud.js';
import { listShippingOptionsRoute } from './list-shipping-options.js';

/** Admin CRUD at /admin/shipping-options, and the buyer-facing list at /shipping-options. */
export const shippingRoutes: DeclaredRoute[] = [
  ...adminCrudRoutes(shippingOptionCrud),
  listShippingOptionsRoute,
];
