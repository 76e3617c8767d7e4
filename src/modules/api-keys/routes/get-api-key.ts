import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { ApiKeyParams, ApiKeySchema } from '../schemas.js';
import { getApiKey } from '../service.js';
import { keyActions, present, TAGS } from './shared.js';

export const getApiKeyRoute = defineRoute({
  method: 'GET',
  path: '/admin/api-keys/:id',
  operationId: 'getApiKey',
  summary: 'Get an API key',
  description: 'One key of this tenant, without its secret. 404 when the id is not a key of this tenant.',
  tags: TAGS,
  scope: 'admin',
  params: ApiKeyParams,
  responses: { 200: Envelope(ApiKeySchema, 'The key.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const key = await getApiKey(deps.db, ctx.tenantId, request.params.id);
    if (!key) throw notFound('API key');
    return envelope(ctx, present(key), keyActions(key));
  },
});
