export { type CatalogSearchInput, type CatalogSearchPage, searchPublishedCatalog } from './service.js';
