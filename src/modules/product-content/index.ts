export {
  type ContentOfProduct,
  chooseLocale,
  contentOfProductsRead,
  draftProductsRead,
  unpublishedProductIds,
} from './service.js';
export type { LocaleFields, MediaItem } from './tables.js';
