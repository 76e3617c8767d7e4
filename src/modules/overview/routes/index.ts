import type { DeclaredRoute } from '../../../http/declared-route.js';
import { getOverviewRoute } from './get-overview.js';
import { listRequestErrorsRoute } from './list-request-errors.js';

export const overviewRoutes: DeclaredRoute[] = [getOverviewRoute, listRequestErrorsRoute];
