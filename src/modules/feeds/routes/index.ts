import type { DeclaredRoute } from '../../../http/declared-route.js';
import { exportAcpFeedRoute } from './export-acp-feed.js';

export const feedRoutes: DeclaredRoute[] = [exportAcpFeedRoute];
