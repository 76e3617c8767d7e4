import { type TSchema, Type } from 'typebox';
import { StringEnum } from '../core/schema.js';
import { hasScope, type Scope, ScopeSchema } from '../core/scopes.js';
import type { RequestContext } from './context.js';

export const API_PREFIX = '/api/v1';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** An operation an agent can take next, before the caller's permission is known. */
export interface ActionSpec {
  rel: string;
  method: HttpMethod;
  /** Path under /api/v1, e.g. `/accounts/123`; the envelope prefixes it. */
  path: string;
  requiredScope: Scope | null;
}

export interface NextAction {
  rel: string;
  method: HttpMethod;
  href: string;
  requiredScope: Scope | null;
  allowed: boolean;
}

export const NextActionSchema = Type.Object(
  {
    rel: Type.String({ description: 'Relation name, e.g. `self`, `update`, `createPaymentSession`.' }),
    method: StringEnum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']),
    href: Type.String({ description: 'Absolute path of the operation, under /api/v1.' }),
    requiredScope: Type.Union([ScopeSchema, Type.Null()], { description: 'Scope the operation needs.' }),
    allowed: Type.Boolean({ description: 'Whether the calling key holds `requiredScope`.' }),
  },
  { $id: 'NextAction' },
);

export const action = (
  rel: string,
  method: HttpMethod,
  path: string,
  requiredScope: Scope | null,
): ActionSpec => ({
  rel,
  method,
  path,
  requiredScope,
});

/** Builds the `{ data, nextActions }` body every resource response uses. */
export function envelope<T>(ctx: RequestContext | null, data: T, actions: readonly ActionSpec[] = []) {
  const scopes = ctx?.scopes ?? [];
  const nextActions: NextAction[] = actions.map((a) => ({
    rel: a.rel,
    method: a.method,
    href: API_PREFIX + a.path,
    requiredScope: a.requiredScope,
    allowed: hasScope(scopes, a.requiredScope),
  }));
  return { data, nextActions };
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
