import type { DeclaredRoute } from '../../../http/declared-route.js';
import { getSellerProfileRoute } from './get-seller-profile.js';
import { updateSellerProfileRoute } from './update-seller-profile.js';

export const sellerRoutes: DeclaredRoute[] = [getSellerProfileRoute, updateSellerProfileRoute];
