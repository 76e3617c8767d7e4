import { contextValue, createContextKey, withContextValue } from '../observability/async-context.js';

const API_TRANSACTION = createContextKey('inside the API write transaction');

/** Marks `fn` as running inside the API's write transaction (runUnitOfWork does this). */
export function insideApiTransaction<T>(fn: () => Promise<T>): Promise<T> {
  return withContextValue(API_TRANSACTION, true, fn);
}

/**
 * Billing adapters are external systems: calling one inside our transaction would hold locks
 * across a network call, and on PGlite (one connection) the built-in engine would wait for our
 * transaction forever. Fail at once instead, naming the fix.
 */
export function assertOutsideApiTransaction(what: string): void {
  if (contextValue(API_TRANSACTION)) {
    throw new Error(
      `${what} was called inside the API's write transaction: call the adapter before the unit of work, under an intent (src/unit-of-work/intents.ts)`,
    );
  }
}

const QUERY_METHODS = new Set([
  'select',
  'selectDistinct',
  'selectDistinctOn',
  'insert',
  'update',
  'delete',
  'execute',
  'transaction',
  'with',
  '$count',
]);

/**
 * The root database handle, refusing queries inside the API's write transaction: there the
 * transaction (`m.tx`) must be used, or the query would run outside it (on PGlite, wait for it
 * forever).
 */
export function guardRootHandle<T extends object>(db: T): T {
  return new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || !QUERY_METHODS.has(String(property))) return value;
      return (...args: unknown[]) => {
        assertOutsideApiTransaction(`db.${String(property)} (use the mutation's transaction)`);
        return value.apply(target, args);
      };
    },
  });
}
