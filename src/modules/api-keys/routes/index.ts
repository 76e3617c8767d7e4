import type { DeclaredRoute } from '../../../http/declared-route.js';
import { createApiKeyRoute } from './create-api-key.js';
import { getApiKeyRoute } from './get-api-key.js';
import { listApiKeysRoute } from './list-api-keys.js';
import { revokeApiKeyRoute } from './revoke-api-key.js';

export const apiKeyRoutes: DeclaredRoute[] = [
  createApiKeyRoute,
  listApiKeysRoute,
  getApiKeyRoute,
  revokeApiKeyRoute,
];
