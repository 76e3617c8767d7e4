import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { revokeKey } from '../operations.js';
import { ApiKeyParams, ApiKeySchema } from '../schemas.js';
import { keyResponse, TAGS } from './shared.js';

export const revokeApiKeyRoute = defineRoute({
  method: 'POST',
  path: '/admin/api-keys/:id/revoke',
  operationId: 'revokeApiKey',
  summary: 'Revoke an API key',
  description:
    'Revokes the key: requests with it get 401 within seconds on every instance (immediately on this one). ' +
    'Revoking an already revoked key changes nothing and returns it.',
  tags: TAGS,
  scope: 'admin',
  params: ApiKeyParams,
  responses: { 200: Envelope(ApiKeySchema, 'The key, now revoked.'), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
    const input = { keyId: request.params.id };
    const sent = await respond(
      deps,
      request,
      reply,
      (ctx, key) => revokeKey(deps, ctx, input, key),
      keyResponse,
    );
    deps.apiKeys.forget(request.params.id);
    return sent;
  },
});
