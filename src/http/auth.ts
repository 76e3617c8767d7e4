import type { FastifyRequest } from 'fastify';
import type { AppEnv } from '../config.js';
import type { ApiKeyResolver } from '../modules/api-keys/index.js';
import { parseKeyEnvironment } from '../modules/api-keys/index.js';
import type { RequestContext } from './context.js';
import { AppError } from './errors.js';
import { expandScopes, hasScope } from './scopes.js';
import type { TypedApp } from './types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on authenticated routes; null on public ones. */
    ctx: RequestContext | null;
  }
}

const unauthorized = (message: string) => new AppError('unauthorized', message);

async function authenticate(
  request: FastifyRequest,
  resolver: ApiKeyResolver,
  environment: AppEnv,
): Promise<RequestContext> {
  const header = request.headers.authorization;
  if (!header) throw unauthorized('Missing API key: send Authorization: Bearer <api key>');
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized('Malformed Authorization header: expected "Bearer <api key>"');
  const secret = match[1];
  const keyEnv = parseKeyEnvironment(secret);
  if (!keyEnv) throw unauthorized('Malformed API key: expected cak_live_... or cak_test_...');
  if (keyEnv !== environment) {
    throw unauthorized(`This is a ${keyEnv} key; this deployment serves the ${environment} environment`);
  }
  const key = await resolver.resolve(secret);
  if (!key || key.environment !== environment) throw unauthorized('Unknown API key');
  if (key.revokedAt) throw unauthorized('This API key has been revoked');
  resolver.markUsed(key);
  return {
    tenantId: key.tenantId,
    environment: key.environment,
    keyId: key.id,
    scopes: expandScopes(key.scopes),
    rateTier: key.rateTier,
    requestId: request.id,
  };
}

/** Authenticates every route whose config names a scope, then checks the scope. */
export function registerAuth(app: TypedApp, resolver: ApiKeyResolver, environment: AppEnv) {
  app.decorateRequest('ctx', null);
  app.addHook('onRequest', async (request) => {
    const required = request.routeOptions.config.scope;
    if (!required) return;
    const ctx = await authenticate(request, resolver, environment);
    request.ctx = ctx;
    if (!hasScope(ctx.scopes, required)) {
      throw new AppError(
        'forbidden',
        `This operation needs the "${required}" scope; the key has ${ctx.scopes.join(', ') || 'none'}`,
      );
    }
  });
}

/** The caller's context on a route that requires a scope (the hook guarantees it is set). */
export function requireCtx(request: FastifyRequest): RequestContext {
  if (!request.ctx) throw new Error('route has no scope configured but reads the request context');
  return request.ctx;
}
