import { createHash } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import type { Tx } from '../db/client.js';

/**
 * What the caller of an operation (the HTTP edge) runs inside the operation's one transaction:
 * `begin` first (the Idempotency-Key lock and replay check), `beforeCommit` after the work with
 * its result (serialise the response and store it with the write). A `begin` hook makes the
 * unit of work use a transaction even on its single-statement path.
 */
export interface CommitHooks {
  begin?(tx: Tx): Promise<void>;
  beforeCommit?(result: unknown, tx: Tx | null): Promise<void>;
}

/**
 * Names one operation. The same operation sent again has the same key, so its external effects
 * carry the same billing idempotency keys (src/unit-of-work/intents.ts) and happen once; another
 * operation, even under the same Idempotency-Key with another body, has another key.
 */
export interface OperationKey {
  /** `op_` + 32 hex characters: derived for a retried request or a system job, minted otherwise. */
  readonly id: string;
  readonly hooks?: CommitHooks;
}

const digest = (parts: readonly string[]) =>
  createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);

/** A key of its own, for an operation nobody will retry under the same name. */
export const mintedKey = (): OperationKey => ({ id: `op_${uuidv7().replaceAll('-', '')}` });

/** The key of an operation named by `parts` (a request's scope and hash, a scheduler job, a provider event). */
export const derivedKey = (parts: readonly string[], hooks?: CommitHooks): OperationKey => ({
  id: `op_${digest(parts)}`,
  ...(hooks ? { hooks } : {}),
});
