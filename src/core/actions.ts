import type { Scope } from './scopes.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * An operation an agent can take next, before the caller's permission is known: in a resource's
 * `nextActions`, and in an error body where a recovery exists (create a new cart, read the
 * session). The HTTP edge turns it into a `NextAction` for the calling key.
 */
export interface ActionSpec {
  rel: string;
  method: HttpMethod;
  /** Path under /api/v1, e.g. `/accounts/123`; the envelope prefixes it. */
  path: string;
  requiredScope: Scope | null;
  /** Body fields the server already knows (path ids and query are added centrally). */
  arguments?: Record<string, unknown>;
  /**
   * Why the action cannot succeed in the resource's current state. Only for the rels SPEC.md
   * requires a resource to list: any other action that cannot succeed is simply not offered.
   */
  unavailable?: string;
}

/** A required rel that cannot succeed now: listed with `allowed: false` and this reason. */
export const unavailable = (spec: ActionSpec, reason: string): ActionSpec => ({
  ...spec,
  unavailable: reason,
});

export const action = (
  rel: string,
  method: HttpMethod,
  path: string,
  requiredScope: Scope | null,
  args?: Record<string, unknown>,
): ActionSpec => ({
  rel,
  method,
  path,
  requiredScope,
  ...(args ? { arguments: args } : {}),
});
