import type { DeclaredRoute } from '../../../http/declared-route.js';
import { getAdminProductContentRoute } from './get-admin-product-content.js';
import { getProductContentRoute } from './get-product-content.js';
import { listContentVersionsRoute } from './list-content-versions.js';
import { patchLocaleContentRoute } from './patch-locale-content.js';
import { putLocaleContentRoute } from './put-locale-content.js';
import { restoreContentVersionRoute } from './restore-content-version.js';
import { updateProductContentRoute } from './update-product-content.js';

export const productContentRoutes: DeclaredRoute[] = [
  getProductContentRoute,
  getAdminProductContentRoute,
  updateProductContentRoute,
  putLocaleContentRoute,
  patchLocaleContentRoute,
  listContentVersionsRoute,
  restoreContentVersionRoute,
];
