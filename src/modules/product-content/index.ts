export { draftProductsRead, unpublishedProductIds } from './service.js';
