export { FEED_PAGE_SIZE, type FeedOptions, openAcpFeed } from './service.js';
