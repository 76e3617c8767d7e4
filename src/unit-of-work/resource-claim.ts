import type { Queryable, Tx } from '../db/client.js';

/**
 * What an operation holds while its billing calls run: a resource marked with the operation's id
 * (a subscription's `operation_key` at its version, a payment session's `operation_key`), so no
 * other operation changes it meanwhile. Claimed in the transaction that begins the intent; given
 * back (`release`) when the intent closes without anything taking effect; cleared by the
 * operation's commit otherwise.
 */
export interface ResourceClaim<E = undefined> {
  /** The intent's subject type (`subscription`, `payment_session`). */
  readonly subjectType: string;
  /**
   * Claims resource `id` for `operationId` (claimed by it already: held again), when it is as the
   * operation planned on (`expected`: a version, a state); otherwise throws the resource's 404/409.
   */
  claim(tx: Tx, tenantId: string, id: string, operationId: string, expected: E, now: Date): Promise<void>;
  /** Gives the claim of `operationId` back; nothing when another holds it. */
  release(q: Queryable, tenantId: string, id: string, operationId: string): Promise<void>;
}
