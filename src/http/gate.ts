import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { AppEnv } from '../config.js';
import { AppError } from '../core/errors.js';
import { hasScope, type Scope } from '../core/scopes.js';
import { contextValue, createContextKey, withContextValue } from '../observability/async-context.js';
import { authenticate, type KeyResolver } from './auth.js';
import { authenticateSession, type SessionResolver, sessionCookie } from './console-session.js';
import type { RequestContext } from './context.js';
import { RATE_LIMIT_TIERS, RATE_LIMIT_WINDOW_SECONDS } from './limits.js';
import type { RateLimiter } from './rate-limit/limiter.js';
import { routePermission } from './route-permission.js';
import { requestLogFields } from './telemetry.js';
import type { TypedApp } from './types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on authenticated routes; null on public ones. */
    ctx: RequestContext | null;
  }
}

export interface GateDeps {
  apiKeys: KeyResolver;
  consoleSessions: SessionResolver;
  environment: AppEnv;
  rateLimiter: RateLimiter;
  clock: Clock;
}

const WINDOW_MS = RATE_LIMIT_WINDOW_SECONDS * 1000;

async function limit(deps: GateDeps, reply: FastifyReply, bucket: string, max: number) {
  const decision = await deps.rateLimiter.check(bucket, max, WINDOW_MS, deps.clock.now().getTime());
  reply.header('X-RateLimit-Limit', String(decision.limit));
  reply.header('X-RateLimit-Remaining', String(decision.remaining));
  reply.header('X-RateLimit-Reset', String(decision.resetAt));
  if (!decision.allowed) {
    throw new AppError(
      'rate_limited',
      `Rate limit of ${decision.limit} requests per ${RATE_LIMIT_WINDOW_SECONDS} seconds exceeded; retry after ${decision.retryAfter} s`,
      undefined,
      decision.retryAfter,
    );
  }
}

const byIp = (request: FastifyRequest) => `ip:${request.ip}`;

/** Set while a request runs routes on behalf of one the gate already counted (an MCP tool call). */
const COUNTED_ALREADY = createContextKey('counted by the rate limit already');
const countedAlready = () => contextValue(COUNTED_ALREADY) === true;

/**
 * Runs `forward`, the requests an MCP call makes to the routes for its caller, without counting
 * them against the key's rate limit again: the /mcp request was counted, and a tool call is one
 * request. Authentication and scopes still apply to each. Only code in this process can enter it.
 */
export function forwardedWithinLimit<T>(forward: () => PromiseLike<T>): Promise<T> {
  // `then` is called inside the scope: `app.inject` answers a lazy thenable that dispatches the
  // request only when it is, and an `await` outside would dispatch it outside.
  return withContextValue(
    COUNTED_ALREADY,
    true,
    () => new Promise<T>((resolve, reject) => forward().then(resolve, reject)),
  );
}

/**
 * Runs before body parsing on every request: authenticates routes that need a scope, applies the
 * rolling-window rate limit (per key; per client IP for unauthenticated requests, including
 * failed authentication; a route may give its callers a bucket of their own), then checks the
 * scope. Health probes opt out with `rateLimit: false`; what an MCP call forwards is counted once
 * (`forwardedWithinLimit`).
 */
export function registerRequestGate(app: TypedApp, deps: GateDeps) {
  app.decorateRequest('ctx', null);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (config.rateLimit === false) return;
    const required = config.scope;
    if (!required) {
      if (countedAlready()) return;
      const own = config.rateLimit;
      return own
        ? limit(deps, reply, `${byIp(request)}:${own.bucket}`, own.max)
        : limit(deps, reply, byIp(request), RATE_LIMIT_TIERS.standard);
    }
    const ctx = await authenticated(request, reply, deps, required);
    request.ctx = ctx;
    request.log = request.log.child(requestLogFields(request));
    if (!countedAlready())
      await limit(
        deps,
        reply,
        ctx.userId ? `user:${ctx.userId}` : `key:${ctx.keyId}`,
        RATE_LIMIT_TIERS[ctx.rateTier],
      );
    if (ctx.userId) return;
    if (!hasScope(ctx.scopes, required)) {
      throw new AppError(
        'forbidden',
        `This operation needs the "${required}" scope; the key has ${ctx.scopes.join(', ') || 'none'}`,
      );
    }
  });
}

/**
 * The caller: a Bearer API key, else the console's session cookie (its CSRF token checked on
 * writes, its role's permission for the route checked here). A failed authentication is counted
 * against the client IP.
 */
async function authenticated(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: GateDeps,
  required: Scope,
): Promise<RequestContext> {
  try {
    const cookie = request.headers.authorization ? undefined : sessionCookie(request);
    if (!cookie) return await authenticate(request, deps.apiKeys, deps.environment);
    const { ctx, session } = await authenticateSession(
      request,
      cookie,
      deps.consoleSessions,
      deps.environment,
    );
    const config = request.routeOptions.config;
    const needed =
      config.permission ?? routePermission(request.method, request.routeOptions.url ?? '', required);
    if (!session.permissions.includes(needed)) {
      throw new AppError(
        'forbidden',
        `The ${session.role} role may not do this: it needs the "${needed}" permission`,
      );
    }
    return ctx;
  } catch (err) {
    if (err instanceof AppError && err.status === 401)
      await limit(deps, reply, byIp(request), RATE_LIMIT_TIERS.standard);
    throw err;
  }
}
