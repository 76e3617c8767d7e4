import type { Scope } from './scopes.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * An operation an agent can take next, before the caller's permission is known: in a resource's
 * `nextActions`, and in an error body where a recovery exists (create a new cart, read the
 * session). The HTTP edge turns it into a `NextAction` for the calling key.
 *
 * Named by `operationId` (`next('self', 'getOrder', { id })`): the route table at the HTTP edge
 * supplies its method, path and required scope, so they are never restated. The older form by
 * method and path (`action(...)`) remains for the few places that build a path from the request
 * itself (the `next` page of a list) and for operations not yet moved to `next`.
 */
export type ActionSpec = OperationActionSpec | PathActionSpec;

interface ActionSpecBase {
  rel: string;
  /**
   * Why the action cannot succeed in the resource's current state. Only for the rels SPEC.md
   * requires a resource to list: any other action that cannot succeed is simply not offered.
   */
  unavailable?: string;
}

/** An action by operation: the route table resolves method, path and scope. */
export interface OperationActionSpec extends ActionSpecBase {
  operationId: string;
  /**
   * What the server already knows, by name: path parameters (filled into the path), query
   * parameters of the operation (added to the href's query) and body fields.
   */
  arguments?: Record<string, unknown>;
}

/** An action by method and path (the path under /api/v1, e.g. `/accounts/123`). */
export interface PathActionSpec extends ActionSpecBase {
  method: HttpMethod;
  path: string;
  requiredScope: Scope | null;
  /** Body fields the server already knows (path ids and query are added centrally). */
  arguments?: Record<string, unknown>;
}

export const isOperationAction = (spec: ActionSpec): spec is OperationActionSpec => 'operationId' in spec;

/** A required rel that cannot succeed now: listed with `allowed: false` and this reason. */
export const unavailable = <S extends ActionSpec>(spec: S, reason: string): S => ({
  ...spec,
  unavailable: reason,
});

/** The action `rel` calls operation `operationId` with the `args` the server already knows. */
export const next = (
  rel: string,
  operationId: string,
  args?: Record<string, unknown>,
): OperationActionSpec => ({ rel, operationId, ...(args ? { arguments: args } : {}) });

export const action = (
  rel: string,
  method: HttpMethod,
  path: string,
  requiredScope: Scope | null,
  args?: Record<string, unknown>,
): PathActionSpec => ({
  rel,
  method,
  path,
  requiredScope,
  ...(args ? { arguments: args } : {}),
});
