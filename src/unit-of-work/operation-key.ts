import { createHash } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import type { Tx } from '../db/client.js';

/**
 * What the caller of an operation (the HTTP edge) runs inside the operation's one transaction:
 * `begin` first (the Idempotency-Key lock and replay check), `beforeCommit` after the work with
 * its result (serialise the response and store it with the write). A `begin` hook makes the
 * unit of work use a transaction even on its single-statement path.
 *
 * So the result the unit of work commits IS the operation's result: the response stored for a
 * retry is made from it. `T` ties the two together: an operation taking an `OperationKey<T>`
 * passes it to a unit of work whose work returns `T` (the compiler refuses anything else).
 */
export interface CommitHooks<T> {
  /**
   * `beforeCommit` writes in the unit's transaction (the HTTP edge stores the idempotent
   * response there): a unit that would write in one buffered statement opens a transaction.
   */
  transactional?: boolean;
  beforeCommit?: (result: T, tx: Tx | null) => Promise<void>;
  /**
   * The operation's result moved on after its commit through a later step of the operation
   * itself (credit applied on issue after an order's commit pays the order): the response is made
   * again from it and stored for retries, so the answer and its replay say the same.
   */
  afterCommit?: (result: T) => Promise<void>;
}

/**
 * Names one operation. The same operation sent again has the same key, so its external effects
 * carry the same billing idempotency keys (src/unit-of-work/intents.ts) and happen once; another
 * operation, even under the same Idempotency-Key with another body, has another key.
 */
export interface OperationKey<T = unknown> {
  /** `op_` + 32 hex characters: derived for a retried request or a system job, minted otherwise. */
  readonly id: string;
  readonly hooks?: CommitHooks<T>;
}

const digest = (parts: readonly string[]) =>
  createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);

/** A key of its own, for an operation nobody will retry under the same name. */
export const mintedKey = <T = unknown>(hooks?: CommitHooks<T>): OperationKey<T> => ({
  id: `op_${uuidv7().replaceAll('-', '')}`,
  ...(hooks ? { hooks } : {}),
});

/** The key of an operation named by `parts` (a request's scope and hash, a scheduler job, a provider event). */
export const derivedKey = <T = unknown>(
  parts: readonly string[],
  hooks?: CommitHooks<T>,
): OperationKey<T> => ({
  id: `op_${digest(parts)}`,
  ...(hooks ? { hooks } : {}),
});
