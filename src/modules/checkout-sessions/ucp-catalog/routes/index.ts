import { getUcpProduct } from './get-product.js';
import { lookupUcpCatalog } from './lookup-catalog.js';
import { searchUcpCatalog } from './search-catalog.js';

/** UCP's catalog capabilities over REST (catalog/rest.md): search, lookup and get product. */
export const ucpCatalogRoutes = [searchUcpCatalog, lookupUcpCatalog, getUcpProduct];
