export { type CatalogQuery, catalogSearchStatement, type MatchMode } from './search.js';
export { type CatalogSearchInput, type CatalogSearchPage, searchPublishedCatalog } from './service.js';
