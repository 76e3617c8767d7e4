import { AsyncLocalStorage } from 'node:async_hooks';

const apiTransaction = new AsyncLocalStorage<true>();

/** Marks `fn` as running inside the API's write transaction (runMutation does this). */
export function insideApiTransaction<T>(fn: () => Promise<T>): Promise<T> {
  return apiTransaction.run(true, fn);
}

/**
 * Billing adapters are external systems: calling one inside our transaction would hold locks
 * across a network call, and on PGlite (one connection) the built-in engine would wait for our
 * transaction forever. Fail at once instead, naming the fix.
 */
export function assertOutsideApiTransaction(what: string): void {
  if (apiTransaction.getStore()) {
    throw new Error(
      `${what} was called inside the API's write transaction: call the adapter before runMutation`,
    );
  }
}
