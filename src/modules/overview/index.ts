export { type Overview, readOverview } from './service.js';
