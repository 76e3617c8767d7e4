export { unpublishedProductIds } from './service.js';
