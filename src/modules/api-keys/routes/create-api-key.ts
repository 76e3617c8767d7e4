import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { respond } from '../../../http/operation.js';
import { createApiKey } from '../operations.js';
import { CreateApiKeyBody, CreatedApiKeySchema } from '../schemas.js';
import { issuedResponse, TAGS } from './shared.js';

export const createApiKeyRoute = defineRoute({
  method: 'POST',
  path: '/admin/api-keys',
  operationId: 'createApiKey',
  summary: 'Issue an API key',
  description:
    'Issues a key for this tenant in this deployment’s environment. The secret `key` is in this response ' +
    'only; it is stored as a hash. Rate tier defaults to `standard`.',
  tags: TAGS,
  scope: 'admin',
  body: CreateApiKeyBody,
  responses: {
    201: Envelope(CreatedApiKeySchema, 'The new key, with its secret `key` (shown only now).'),
  },
  handler: async (request, reply, deps) =>
    respond(deps, request, reply, (ctx, key) => createApiKey(deps, ctx, request.body, key), issuedResponse),
});
