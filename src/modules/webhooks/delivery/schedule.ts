import type { DeliveryStatus } from '../tables.js';

/** SPEC.md section 6: 5 attempts in all, then `dead_letter`. */
export const MAX_ATTEMPTS = 5;
/** The bounds of a wait between attempts: 2^1 and 2^4 seconds. */
const MIN_WAIT_S = 2;
const MAX_WAIT_S = 16;

/**
 * What a failed or successful attempt makes of a delivery. `attempt` is its number in the cycle
 * (1-5). After failure n < 5 the next attempt waits 2^n seconds (2, 4, 8, 16), or the receiver's
 * Retry-After when it sent one, held within the same 2-16 s bounds.
 */
export function afterAttempt(
  attempt: number,
  ok: boolean,
  retryAfterSeconds: number | null,
  attemptedAt: Date,
): { status: Exclude<DeliveryStatus, 'pending'>; nextAttemptAt: Date | null } {
  if (ok) return { status: 'succeeded', nextAttemptAt: null };
  if (attempt >= MAX_ATTEMPTS) return { status: 'dead_letter', nextAttemptAt: null };
  const waitS =
    retryAfterSeconds === null ? 2 ** attempt : Math.min(MAX_WAIT_S, Math.max(MIN_WAIT_S, retryAfterSeconds));
  return { status: 'failed', nextAttemptAt: new Date(attemptedAt.getTime() + waitS * 1000) };
}
