import type { DeclaredRoute } from '../../../http/declared-route.js';
import { getCatalogRoute } from './get-catalog.js';
import { searchCatalogRoute } from './search-catalog.js';

/** What buyers and agents see of the catalog: the published products, and search over them. */
export const storefrontRoutes: DeclaredRoute[] = [getCatalogRoute, searchCatalogRoute];
