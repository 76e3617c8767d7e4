import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { HttpMethod } from '../core/actions.js';
import type { Permission } from '../core/permissions.js';
import type { Scope } from '../core/scopes.js';
import type { Deps } from './deps.js';
import { API_PREFIX } from './envelope.js';
import type { CreatedAt } from './openapi-links.js';
import type { ProtocolEdge } from './protocol-edge.js';
import type { TypedApp } from './types.js';

type StaticOf<T> = T extends TSchema ? Static<T> : unknown;

/** The request a declared route's handler gets: typed by its schemas. */
export type DeclaredRequest<P = unknown, Q = unknown, B = unknown, H = unknown> = FastifyRequest<{
  Params: StaticOf<P>;
  Querystring: StaticOf<Q>;
  Body: StaticOf<B>;
  Headers: StaticOf<H>;
}>;

/**
 * One endpoint's whole contract, declared once in the module that owns it: how it is called,
 * what it is (for the OpenAPI document, the MCP tool and an agent reading either), who may call
 * it, what it takes and answers (TypeBox schemas, with examples), and the handler. A module
 * exports its list (`orderRoutes`); `app.ts` registers the lists (`registerRoutes`). nextActions
 * name routes by `operationId` (`next('self', 'getOrder', { id })`), never by method and path.
 *
 * The route registry (`http/route-registry.ts`) adds what every route has: the standard error
 * responses, the Idempotency-Key header of writes, and the checks that a public route is complete.
 */
export interface RouteSpec<P = unknown, Q = unknown, B = unknown, H = unknown> {
  method: HttpMethod;
  /** Under /api/v1 (or `prefix`), Fastify style: `/orders/:id`. */
  path: string;
  /** Another base than /api/v1 (`''` for the root): a protocol binding's own base path. */
  prefix?: string;
  /** A route of another protocol's binding: its errors and headers (src/http/protocol-edge.ts). */
  protocol?: ProtocolEdge;
  operationId: string;
  summary: string;
  /** Written for an agent: what it does, what it refuses (status and code), what to send for a retry. */
  description: string;
  tags: string[];
  /** Scope the caller's key needs; null for a route without a key. */
  scope: Scope | null;
  /**
   * What a console session's role needs for it, where the method, path and scope do not say it
   * (http/route-permission.ts derives the rest).
   */
  permission?: Permission;
  /** False: internal (not in OpenAPI, not a tool). Default true. */
  public?: boolean;
  params?: P;
  query?: Q;
  /** A function of the deps where the schema depends on the deployment (the billing adapters it offers). */
  body?: B | ((deps: Deps) => B);
  headers?: H;
  /** Every response the route itself produces, by status (the standard errors are added). */
  responses: Record<number, TSchema>;
  /** See `FastifyContextConfig.rateLimit` (http/route-registry.ts). */
  rateLimit?: false | { bucket: string; max: number };
  /** See `FastifyContextConfig.createdAt`. */
  createdAt?: CreatedAt[];
  /** Parse, call one operation, present: the answer is sent as it is (a body, or the reply). */
  handler: (request: DeclaredRequest<P, Q, B, H>, reply: FastifyReply, deps: Deps) => Promise<unknown>;
}

/** A declared route, its schema types erased: what a module's route list holds. */
// biome-ignore lint/suspicious/noExplicitAny: the list holds routes of every request shape.
export type DeclaredRoute = RouteSpec<any, any, any, any>;

/** Declares a route; the schemas type the handler's request. */
export const defineRoute = <
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
  H extends TSchema | undefined = undefined,
>(
  spec: RouteSpec<P, Q, B, H>,
): DeclaredRoute => spec;

/** The Fastify route of a declared one; a fresh schema object, as the registry completes it in place. */
function routeOptions(route: DeclaredRoute, deps: Deps) {
  const optional = {
    ...(route.params ? { params: route.params } : {}),
    ...(route.query ? { querystring: route.query } : {}),
    ...(route.body ? { body: typeof route.body === 'function' ? route.body(deps) : route.body } : {}),
    ...(route.headers ? { headers: route.headers } : {}),
  };
  return {
    method: route.method,
    url: (route.prefix ?? API_PREFIX) + route.path,
    config: {
      public: route.public ?? true,
      scope: route.scope,
      ...(route.protocol ? { protocol: route.protocol } : {}),
      ...(route.rateLimit !== undefined ? { rateLimit: route.rateLimit } : {}),
      ...(route.createdAt ? { createdAt: route.createdAt } : {}),
      ...(route.permission ? { permission: route.permission } : {}),
    },
    schema: {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: route.tags,
      ...optional,
      response: { ...route.responses },
    },
    ...(route.protocol ? protocolHooks(route.protocol) : {}),
    handler: (request: FastifyRequest, reply: FastifyReply) =>
      route.handler(request as DeclaredRequest, reply, deps),
  };
}

/** A protocol's required headers checked before validation; its answer headers on every answer. */
function protocolHooks(protocol: ProtocolEdge) {
  return {
    preValidation: async (request: FastifyRequest) => protocol.checkRequest?.(request),
    onSend: async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      protocol.answerHeaders?.(request, reply);
      return payload;
    },
  };
}

/** Registers declared routes, in their order (the OpenAPI document keeps it). */
export function registerRoutes(app: TypedApp, deps: Deps, routes: readonly DeclaredRoute[]) {
  for (const route of routes) app.route(routeOptions(route, deps) as never);
}
