import type { DeclaredRoute } from '../../../http/declared-route.js';
import { getIntentRoute } from './get-intent.js';
import { listIntentsRoute } from './list-intents.js';

export const intentRoutes: DeclaredRoute[] = [listIntentsRoute, getIntentRoute];
