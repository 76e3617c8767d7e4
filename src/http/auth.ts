import type { FastifyRequest } from 'fastify';
import type { AppEnv } from '../config.js';
import type { ApiKeyResolver } from '../modules/api-keys/index.js';
import { parseKeyEnvironment } from '../modules/api-keys/index.js';
import type { RequestContext } from './context.js';
import { AppError } from './errors.js';
import { expandScopes } from './scopes.js';

const unauthorized = (message: string) => new AppError('unauthorized', message);

/** Resolves the Bearer key to the caller's context, or throws 401 saying what is wrong. */
export async function authenticate(
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

/** The caller's context on a route that requires a scope (the hook guarantees it is set). */
export function requireCtx(request: FastifyRequest): RequestContext {
  if (!request.ctx) throw new Error('route has no scope configured but reads the request context');
  return request.ctx;
}
