export type { PublishedProduct } from './published.js';
export { type CatalogQuery, catalogSearchStatement, type MatchMode } from './search.js';
export {
  type CatalogLookupInput,
  type CatalogSearchInput,
  type CatalogSearchPage,
  lookupPublishedProducts,
  type PublishedPage,
  searchPublishedCatalog,
  searchPublishedProducts,
} from './service.js';
