import { type TSchema, Type } from 'typebox';
import {
  type ActionSpec,
  type HttpMethod,
  isOperationAction,
  type OperationActionSpec,
} from '../core/actions.js';
import { StringEnum } from '../core/schema.js';
import { hasScope, type Scope, ScopeSchema } from '../core/scopes.js';
import type { RequestContext } from './context.js';

export const API_PREFIX = '/api/v1';

export { type ActionSpec, action, type HttpMethod, next, unavailable } from '../core/actions.js';

export interface NextAction {
  rel: string;
  method: HttpMethod;
  href: string;
  requiredScope: Scope | null;
  allowed: boolean;
  /** Why `allowed` is false: the key lacks the scope, or the resource's state rules it out. */
  reason?: string;
  /** Filled centrally from the registered routes (src/http/action-operations.ts). */
  operationId?: string;
  arguments?: Record<string, unknown>;
}

export const NextActionSchema = Type.Object(
  {
    rel: Type.String({ description: 'Relation name, e.g. `self`, `update`, `createPaymentSession`.' }),
    method: StringEnum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']),
    href: Type.String({ description: 'Absolute path of the operation, under /api/v1.' }),
    requiredScope: Type.Union([ScopeSchema, Type.Null()], { description: 'Scope the operation needs.' }),
    allowed: Type.Boolean({
      description:
        'Whether the call can succeed now: the calling key holds `requiredScope` and the resource’s state allows it.',
    }),
    reason: Type.Optional(
      Type.String({
        description: 'Why `allowed` is false, e.g. the scope it needs or the link that is missing.',
      }),
    ),
    operationId: Type.Optional(
      Type.String({ description: 'The operation to call (also the MCP tool name), e.g. `payInvoice`.' }),
    ),
    arguments: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Values the server already knows, ready to pass: path ids by parameter name (`id`), query values, and body fields such as `payInvoice`’s `accountId`, `amountCents` and `currency`.',
      }),
    ),
  },
  { $id: 'NextAction' },
);

/**
 * An action named by operation, waiting for the route table: `nextActionsFor` cannot see the
 * routes, the HTTP edge can (`completeActions`, src/http/action-operations.ts, which runs on
 * every body before it is serialised). It carries the caller's scopes; a symbol, so it never
 * reaches a response.
 */
export const PENDING_ACTION = Symbol('pendingAction');

export interface PendingAction {
  spec: OperationActionSpec;
  scopes: readonly Scope[];
}

/** What the route table says of an operation: everything an action needs besides its arguments. */
export interface ActionRoute {
  method: string;
  url: string;
  scope: Scope | null;
  /** Names of the operation's query parameters (other arguments not in the path are body fields). */
  query: readonly string[];
}

const allowance = (scopes: readonly Scope[], requiredScope: Scope | null, unavailableReason?: string) => {
  const permitted = hasScope(scopes, requiredScope);
  const reason =
    unavailableReason ?? (permitted ? undefined : `The API key lacks the "${requiredScope}" scope.`);
  return { allowed: permitted && unavailableReason === undefined, ...(reason ? { reason } : {}) };
};

/**
 * A pending action made whole from its operation's route: the path's parameters filled in, the
 * operation's query parameters added to the href, the rest body fields. The same shape (and key
 * order) as an action by path after `completeActions`.
 */
export function resolveAction(pending: PendingAction, route: ActionRoute): NextAction {
  const { spec, scopes } = pending;
  const given = spec.arguments ?? {};
  const pathArgs: Record<string, unknown> = {};
  const path = route.url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    if (given[name] === undefined || given[name] === null)
      throw new Error(`nextActions: ${spec.operationId} needs the path parameter "${name}"`);
    pathArgs[name] = String(given[name]);
    return encodeURIComponent(String(given[name]));
  });
  const query = new URLSearchParams();
  const queryArgs: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(given)) {
    if (k in pathArgs || v === undefined) continue;
    if (route.query.includes(k)) {
      query.append(k, String(v));
      queryArgs[k] = String(v);
    } else body[k] = v;
  }
  const search = query.toString();
  const head = {
    rel: spec.rel,
    method: route.method as HttpMethod,
    href: search ? `${path}?${search}` : path,
    requiredScope: route.scope,
    ...allowance(scopes, route.scope, spec.unavailable),
  };
  const args = { ...pathArgs, ...queryArgs, ...body };
  return Object.keys(body).length > 0
    ? { ...head, arguments: args, operationId: spec.operationId }
    : { ...head, operationId: spec.operationId, arguments: args };
}

/**
 * The actions as the calling key sees them: absolute paths, and whether its scopes allow each.
 * An action named by operation is left pending for the edge to resolve from the route table.
 */
export function nextActionsFor(
  ctx: RequestContext | null | undefined,
  actions: readonly ActionSpec[],
): NextAction[] {
  const scopes = ctx?.scopes ?? [];
  return actions.map((a) => {
    if (isOperationAction(a)) {
      const pending: PendingAction = { spec: a, scopes };
      return { rel: a.rel, operationId: a.operationId, [PENDING_ACTION]: pending } as unknown as NextAction;
    }
    return {
      rel: a.rel,
      method: a.method,
      href: API_PREFIX + a.path,
      requiredScope: a.requiredScope,
      ...allowance(scopes, a.requiredScope, a.unavailable),
      ...(a.arguments ? { arguments: { ...a.arguments } } : {}),
    };
  });
}

/** Builds the `{ data, nextActions }` body every resource response uses. */
export function envelope<T>(ctx: RequestContext | null, data: T, actions: readonly ActionSpec[] = []) {
  return { data, nextActions: nextActionsFor(ctx, actions) };
}

/**
 * Schema of an envelope around `data`; `description` becomes the response's description in OpenAPI,
 * and `example` (a whole `{ data, nextActions }` body) the response's example.
 */
export function Envelope<T extends TSchema>(data: T, description: string, example?: object) {
  return Type.Object(
    {
      data,
      nextActions: Type.Array(Type.Ref('NextAction'), {
        description: 'Operations available from this resource; follow these instead of building URLs.',
      }),
    },
    { description, ...(example ? { examples: [example] } : {}) },
  );
}

/**
 * A presented answer with `data.warnings` added when there are any: what the request was taken
 * with but looks wrong (an unknown partner code), reported instead of silently ignored.
 */
export function withWarnings<P extends { status: number; body: unknown }>(
  presented: P,
  warnings: readonly object[],
): P {
  if (warnings.length === 0) return presented;
  const body = presented.body as { data: object };
  return { ...presented, body: { ...body, data: { ...body.data, warnings } } };
}
