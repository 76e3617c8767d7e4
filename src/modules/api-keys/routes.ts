import { LIST_PAGING } from '../../core/agent-guide.js';
import { notFound } from '../../core/errors.js';
import { iso, isoOrNull } from '../../core/format.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { type Presented, respond } from '../../http/operation.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../http/paging.js';
import type { TypedApp } from '../../http/types.js';
import { createApiKey, type IssuedKey, revokeKey } from './operations.js';
import { ApiKeyParams, ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema } from './schemas.js';
import { type ApiKey, getApiKey, listApiKeys } from './service.js';

const BASE = '/admin/api-keys';
const TAGS = ['API keys'];

const present = (key: ApiKey) => ({
  ...key,
  status: key.revokedAt ? ('revoked' as const) : ('active' as const),
  createdAt: iso(key.createdAt),
  lastUsedAt: isoOrNull(key.lastUsedAt),
  revokedAt: isoOrNull(key.revokedAt),
});

const keyActions = (key: ApiKey) => [
  action('self', 'GET', `${BASE}/${key.id}`, 'admin'),
  ...(key.revokedAt ? [] : [action('revoke', 'POST', `${BASE}/${key.id}/revoke`, 'admin')]),
  action('list', 'GET', BASE, 'admin'),
];

const issuedResponse = ({ apiKey, secret }: IssuedKey, ctx: RequestContext): Presented => ({
  status: 201,
  body: envelope(ctx, { ...present(apiKey), key: secret }, keyActions(apiKey)),
});

const keyResponse = (key: ApiKey, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(ctx, present(key), keyActions(key)),
});

/** Admin endpoints to issue, inspect and revoke the tenant's API keys. */
export function registerApiKeyRoutes(app: TypedApp, deps: Deps) {
  const config = { public: true, scope: 'admin' } as const;

  app.post(
    `/api/v1${BASE}`,
    {
      config,
      schema: {
        operationId: 'createApiKey',
        summary: 'Issue an API key',
        description:
          'Issues a key for this tenant in this deployment’s environment. The secret `key` is in this response ' +
          'only; it is stored as a hash. Rate tier defaults to `standard`.',
        tags: TAGS,
        body: CreateApiKeyBody,
        response: {
          201: Envelope(CreatedApiKeySchema, 'The new key, with its secret `key` (shown only now).'),
        },
      },
    },
    async (request, reply) =>
      respond(deps, request, reply, (ctx, key) => createApiKey(deps, ctx, request.body, key), issuedResponse),
  );

  app.get(
    `/api/v1${BASE}`,
    {
      config,
      schema: {
        operationId: 'listApiKeys',
        summary: 'List API keys',
        description: `All keys of this tenant, active and revoked, newest first. Secrets are never shown. ${LIST_PAGING.text}`,
        tags: TAGS,
        querystring: PageQuery,
        response: { 200: ListEnvelope(ApiKeySchema, 'The tenant’s keys, newest first.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const keys = await listApiKeys(deps.db, ctx.tenantId);
      return inMemoryList(deps.keyRing, ctx, request, 'api-keys', keys.map(present), [
        action('create', 'POST', BASE, 'admin'),
      ]);
    },
  );

  app.get(
    `/api/v1${BASE}/:id`,
    {
      config,
      schema: {
        operationId: 'getApiKey',
        summary: 'Get an API key',
        description:
          'One key of this tenant, without its secret. 404 when the id is not a key of this tenant.',
        tags: TAGS,
        params: ApiKeyParams,
        response: { 200: Envelope(ApiKeySchema, 'The key.'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const key = await getApiKey(deps.db, ctx.tenantId, request.params.id);
      if (!key) throw notFound('API key');
      return envelope(ctx, present(key), keyActions(key));
    },
  );

  app.post(
    `/api/v1${BASE}/:id/revoke`,
    {
      config,
      schema: {
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description:
          'Revokes the key: requests with it get 401 within seconds on every instance (immediately on this one). ' +
          'Revoking an already revoked key changes nothing and returns it.',
        tags: TAGS,
        params: ApiKeyParams,
        response: { 200: Envelope(ApiKeySchema, 'The key, now revoked.'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
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
  );
}
