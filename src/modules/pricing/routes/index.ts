import type { DeclaredRoute } from '../../../http/declared-route.js';
import { resolvePriceRoute } from './resolve-price.js';

export const pricingRoutes: DeclaredRoute[] = [resolvePriceRoute];
