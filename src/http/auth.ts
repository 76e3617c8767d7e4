import type { FastifyRequest } from 'fastify';
import type { AppEnv } from '../config.js';
import { AppError } from '../core/errors.js';
import { expandScopes } from '../core/scopes.js';
import type { RequestContext } from './context.js';

/** A key as the gate needs it. */
export interface ResolvedKey {
  id: string;
  tenantId: string;
  environment: AppEnv;
  scopes: readonly string[];
  rateTier: RequestContext['rateTier'];
  revokedAt: Date | null;
}

/** Looks up presented API keys (the api-keys module implements it; the composition root wires it). */
export interface KeyResolver {
  /** The environment a well-formed key belongs to, or null when the string is not a key. */
  environmentOf(secret: string): AppEnv | null;
  resolve(secret: string): Promise<ResolvedKey | null>;
  /** Records that the key was used (off the request path). */
  markUsed(key: ResolvedKey): void;
  /** Drops a revoked key from this instance's cache, and announces it to the others. */
  forget(keyId: string): void;
  close?(): Promise<void>;
}

const unauthorized = (message: string) => new AppError('unauthorized', message);

/** Resolves the Bearer key to the caller's context, or throws 401 saying what is wrong. */
export async function authenticate(
  request: FastifyRequest,
  resolver: KeyResolver,
  environment: AppEnv,
): Promise<RequestContext> {
  const header = request.headers.authorization;
  if (!header) throw unauthorized('Missing API key: send Authorization: Bearer <api key>');
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized('Malformed Authorization header: expected "Bearer <api key>"');
  const secret = match[1];
  const keyEnv = resolver.environmentOf(secret);
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
    userId: null,
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
