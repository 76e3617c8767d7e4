import {
  type ActionRoute,
  type NextAction,
  PENDING_ACTION,
  type PendingAction,
  resolveAction,
} from './envelope.js';
import type { Operation } from './route-registry.js';
import type { TypedApp } from './types.js';

/**
 * Makes every `nextActions` entry executable as it is: the operation it names (`operationId`,
 * which is also the MCP tool's name) and the arguments the server already knows (`arguments`:
 * the path's ids, the query it carries, and body fields a route put there, such as `payInvoice`'s
 * account, amount and currency). Resolved once, centrally, from the registered routes, so no
 * route builds them by hand and none can name an operation that does not exist.
 *
 * An action named by operation (`next('self', 'getOrder', { id })`) is resolved here whole: its
 * method, href and required scope come from the route table; an operationId the table does not
 * hold is a programming error and throws (test/platform/action-specs.test.ts checks every one in src/).
 */

interface Pattern {
  method: string;
  operationId: string;
  segments: string[];
}

const splitPath = (path: string) => path.split('/').filter((s) => s.length > 0);

export class ActionOperations {
  /** Patterns by method and segment count: a lookup compares a handful, not every route. */
  private readonly patterns = new Map<string, Pattern[]>();
  /** The route table by operationId. */
  private readonly routes = new Map<string, ActionRoute>();

  constructor(operations: readonly Operation[]) {
    for (const op of operations) this.routes.set(op.operationId, op);
    const params = (p: Pattern) => p.segments.filter((s) => s.startsWith(':')).length;
    // A literal segment wins over a parameter (`/webhooks/event-types` before `/webhooks/:id`).
    const sorted = operations
      .map((op) => ({ method: op.method, operationId: op.operationId, segments: splitPath(op.url) }))
      .sort((a, b) => params(a) - params(b));
    for (const p of sorted) {
      const key = `${p.method} ${p.segments.length}`;
      this.patterns.set(key, [...(this.patterns.get(key) ?? []), p]);
    }
  }

  /** The operation `method href` calls, and the arguments its path and query carry. */
  resolve(
    method: string,
    href: string,
  ): { operationId: string; arguments: Record<string, unknown> } | undefined {
    const [path = '', query] = href.split('?', 2);
    const parts = splitPath(path);
    for (const p of this.patterns.get(`${method} ${parts.length}`) ?? []) {
      const args: Record<string, unknown> = {};
      const matches = p.segments.every((segment, i) => {
        const part = decodeURIComponent(parts[i] as string);
        if (segment.startsWith(':')) {
          args[segment.slice(1)] = part;
          return true;
        }
        return segment === part;
      });
      if (!matches) continue;
      for (const [k, v] of new URLSearchParams(query ?? '')) args[k] = v;
      return { operationId: p.operationId, arguments: args };
    }
    return undefined;
  }

  /** The route of an operation; an unknown operationId fails loudly. */
  route(operationId: string): ActionRoute {
    const route = this.routes.get(operationId);
    if (!route) throw new Error(`nextActions name operationId "${operationId}", which no route declares`);
    return route;
  }

  has(operationId: string): boolean {
    return this.routes.has(operationId);
  }

  /** Fills `operationId` and `arguments` into each action (a route's own arguments win). */
  complete(actions: NextAction[]): void {
    for (const [i, a] of actions.entries()) {
      const pending = (a as { [PENDING_ACTION]?: PendingAction })[PENDING_ACTION];
      if (pending) {
        actions[i] = resolveAction(pending, this.route(pending.spec.operationId));
        continue;
      }
      if (a.operationId) continue;
      const found = this.resolve(a.method, a.href);
      if (!found) continue;
      a.operationId = found.operationId;
      a.arguments = { ...found.arguments, ...a.arguments };
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Fills `operationId` and `arguments` into a response body's `nextActions` (in place). */
    completeActions(body: unknown): void;
  }
}

/**
 * Completes the `nextActions` of every response body (resources and errors) before it is
 * serialised: in a hook for plain sends, and through `completeActions` for bodies the HTTP edge
 * serialises itself (responses stored for idempotent replay).
 */
export function registerActionOperations(app: TypedApp, operations: () => readonly Operation[]) {
  let resolver: ActionOperations | undefined;
  const completeActions = (body: unknown) => {
    const actions = (body as { nextActions?: unknown } | null)?.nextActions;
    if (!Array.isArray(actions) || actions.length === 0) return;
    resolver ??= new ActionOperations(operations());
    resolver.complete(actions as NextAction[]);
  };
  app.decorate('completeActions', completeActions);
  // A callback hook, not an async one: no promise on every response.
  app.addHook('preSerialization', (_request, _reply, payload, done) => {
    completeActions(payload);
    done(null, payload);
  });
}
