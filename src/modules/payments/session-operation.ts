import { notFound } from '../../core/errors.js';
import type { Run, ServiceDeps, UnitOfWork } from '../../unit-of-work/index.js';
import { getSession, type PaymentSessionRow, sessionBusy, sessionClaim } from './service.js';

// What the operations on a session's invoice payment (settlement.ts, reversal.ts) declare alike.

/** Rolled forward once the billing call took effect, under the claim of the session. */
export const onSessionPayment = (expected: (row: PaymentSessionRow) => boolean) =>
  ({
    recovery: 'roll_forward',
    claims: {
      resource: sessionClaim,
      id: (plan: { sessionId: string }) => plan.sessionId,
      expected: () => expected,
    },
    adapter: (deps: ServiceDeps, tenantId: string) => deps.billing.forTenant(deps.db, tenantId),
  }) as const;

/**
 * The session the operation decides on (read without its lock: the claim checks it again under
 * it): 404; 409 while another operation holds it (a terminal session is held by none).
 */
export async function sessionToDecide(
  run: Pick<Run<unknown, unknown>, 'deps' | 'ctx'> & { key: { id: string } },
  sessionId: string,
) {
  const row = await getSession(run.deps.db, run.ctx.tenantId, sessionId);
  if (!row) throw notFound('Payment session');
  if (row.operationKey !== null && row.operationKey !== run.key.id) throw sessionBusy();
  return row;
}

/** In the unit of work: the outcome, and what the caller records with it (an audit entry, a provider event). */
export async function andRecord<T>(
  u: UnitOfWork,
  outcome: Promise<T>,
  also: ((u: UnitOfWork, outcome: T) => Promise<void>) | undefined,
): Promise<T> {
  const done = await outcome;
  await also?.(u, done);
  return done;
}
