export { languageConfig } from './search-vector.js';
export {
  acceptedLocales,
  chooseLocale,
  contentsOfProductsRead,
  draftProductsRead,
  type LocalizedContentApi,
  presentLocalized,
  type StoredContent,
  unpublishedProductIds,
} from './service.js';
export type { LocaleFields, MediaItem } from './tables.js';
