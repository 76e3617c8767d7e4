export { FEED_MEDIA_TYPE } from './schemas.js';
export { FEED_PAGE_SIZE, type FeedOptions, openAcpFeed } from './service.js';
