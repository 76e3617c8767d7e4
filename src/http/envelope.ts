import { type TSchema, Type } from 'typebox';
import type { ActionSpec, HttpMethod } from '../core/actions.js';
import { StringEnum } from '../core/schema.js';
import { hasScope, type Scope, ScopeSchema } from '../core/scopes.js';
import type { RequestContext } from './context.js';

export const API_PREFIX = '/api/v1';

export { type ActionSpec, action, type HttpMethod, unavailable } from '../core/actions.js';

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

/** The actions as the calling key sees them: absolute paths, and whether its scopes allow each. */
export function nextActionsFor(
  ctx: RequestContext | null | undefined,
  actions: readonly ActionSpec[],
): NextAction[] {
  const scopes = ctx?.scopes ?? [];
  return actions.map((a) => {
    const permitted = hasScope(scopes, a.requiredScope);
    const reason =
      a.unavailable ?? (permitted ? undefined : `The API key lacks the "${a.requiredScope}" scope.`);
    return {
      rel: a.rel,
      method: a.method,
      href: API_PREFIX + a.path,
      requiredScope: a.requiredScope,
      allowed: permitted && a.unavailable === undefined,
      ...(reason ? { reason } : {}),
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
