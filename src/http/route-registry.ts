import type { RouteOptions } from 'fastify';
import { Type } from 'typebox';
import type { Permission } from '../core/permissions.js';
import type { Scope } from '../core/scopes.js';
import { errorResponses } from './errors.js';
import type { CreatedAt } from './openapi-links.js';
import type { TypedApp } from './types.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The one flag that says whether a route is public API (listed in OpenAPI and everything
     * generated from it) or internal (health, docs, provider callbacks).
     */
    public?: boolean;
    /** Scope the caller's key needs; absent or null means no authentication. */
    scope?: Scope | null;
    /**
     * `false` exempts the route from rate limiting (health probes, and the reference page and its
     * static files, which are no API call). For a route without a
     * key, a bucket of its own per client IP with its own limit instead of the standard tier
     * shared with the other routes without a key (the payment provider's callback).
     */
    rateLimit?: false | { bucket: string; max: number };
    /**
     * For a create (201) whose result is not under its own path: where it lives, so the
     * document links the create to the operations on it (`http/openapi-links.ts`).
     */
    createdAt?: CreatedAt[];
    /**
     * What a console session needs for the route (src/http/route-permission.ts); absent, it is
     * read off the method, path and scope.
     */
    permission?: Permission;
  }
}

export interface Operation {
  method: string;
  url: string;
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  scope: Scope | null;
  /** Names of its query parameters (nextActions put these arguments in the href). */
  query: string[];
}

interface OperationSchema {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  body?: unknown;
  querystring?: unknown;
  params?: unknown;
  headers?: unknown;
  response?: Record<string | number, unknown>;
}

/** Every route the app registered, so OpenAPI, capabilities and tests enumerate one list. */
export class RouteRegistry {
  readonly publicOperations: Operation[] = [];
  readonly internalRoutes: { method: string; url: string }[] = [];
}

/**
 * A body whose fields are all optional may be left out: no body reads as `{}` (a POST that only
 * acts, like completing a payment session, may carry an optional field such as `proof`). Only an
 * absent body: a JSON `null` is a body that is not an object, refused by validation (it was read
 * as `{}`: POST /carts created a cart, POST /payment-methods a card "0000").
 */
function allowAbsentBody(route: RouteOptions) {
  const hooks = route.preValidation;
  const absentAsEmpty: NonNullable<RouteOptions['preValidation']> = (request, _reply, done) => {
    if (request.body === undefined) request.body = {};
    done();
  };
  route.preValidation = [absentAsEmpty, ...(hooks ? (Array.isArray(hooks) ? hooks : [hooks]) : [])];
}

function fail(route: RouteOptions, what: string): never {
  throw new Error(`Route ${String(route.method)} ${route.url}: ${what}`);
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT']);

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Makes a retry safe: the same key, method, path and body within 24 h returns the original response ' +
        '(with `X-Idempotency-Replayed: true`) without running the operation again.',
    }),
  ),
});

/** Adds the error responses every route can produce, so each route declares only its own. */
function addStandardErrors(
  schema: OperationSchema,
  scope: Scope | null | undefined,
  write: boolean,
  method: string,
) {
  const statuses = [500, 503];
  // A DELETE may carry a body too: malformed JSON in it is a 400 (found by the fuzz suite on
  // DELETE /admin/billing-integration, which has no other input to validate).
  if (schema.body || schema.querystring || schema.params || write || method === 'DELETE') statuses.push(400);
  if (schema.body) statuses.push(413, 415);
  if (scope) statuses.push(401, 403);
  if (write) statuses.push(409, 422);
  statuses.push(429);
  const response = schema.response ?? {};
  for (const [status, ref] of Object.entries(errorResponses(...statuses))) {
    if (!(status in response)) response[status] = ref;
  }
  schema.response = response;
}

export function registerRouteRegistry(app: TypedApp, registry: RouteRegistry) {
  app.addHook('onRoute', (route) => {
    const method = String(route.method);
    if (method === 'HEAD') return;
    const config = route.config ?? {};
    if (typeof config.public !== 'boolean')
      fail(route, 'config.public must say whether the route is public API');
    if (!config.public) {
      registry.internalRoutes.push({ method, url: route.url });
      return;
    }
    const schema = (route.schema ?? {}) as OperationSchema;
    if (!schema.operationId || !schema.summary || !schema.description || !schema.tags?.length) {
      fail(route, 'a public route needs operationId, summary, description and tags');
    }
    if (!Object.keys(schema.response ?? {}).some((s) => s.startsWith('2'))) {
      fail(route, 'a public route needs a schema for its success response');
    }
    if (registry.publicOperations.some((op) => op.operationId === schema.operationId)) {
      fail(route, `operationId ${schema.operationId} is used twice`);
    }
    const write = WRITE_METHODS.has(method);
    // Every public write takes an Idempotency-Key (the HTTP edge honours it); declaring the header
    // validates its length and documents it.
    if (write) schema.headers = schema.headers ?? IdempotencyHeaders;
    addStandardErrors(schema, config.scope, write, method);
    route.schema = schema;
    if (schema.body && !(schema.body as { required?: unknown[] }).required?.length) allowAbsentBody(route);
    registry.publicOperations.push({
      method,
      url: route.url,
      operationId: schema.operationId,
      summary: schema.summary,
      description: schema.description,
      tags: schema.tags,
      scope: config.scope ?? null,
      query: Object.keys((schema.querystring as { properties?: object } | undefined)?.properties ?? {}),
    });
  });
}
