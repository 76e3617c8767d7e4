export { findPublished, presentPublic } from './service.js';
export { contentEntries, contentVersions } from './tables.js';
