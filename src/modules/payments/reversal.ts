import { type BillingAdapter, presentInvoice } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import {
  abandonIntent,
  anyCallTookEffect,
  beginIntent,
  type Intent,
  type OperationKey,
  type ResumeIntent,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import {
  claimSession,
  lockSession,
  type PaymentSessionApi,
  type PaymentSessionRow,
  presentSession,
  releaseSession,
  resolveSessionRow,
  sessionBusy,
} from './service.js';

// A provider's failure event decides `failed` for a pending session. After a settlement (the
// session `success` paying an invoice), it is a conflicting later outcome: it is recorded and
// reverses the settlement through the same mechanism (claim, intent, `reversePayment`, commit),
// leaving the session `failed`, its invoice open again, and `payment.reversed`, `payment.failed`
// and `invoice.reopened` emitted. A success without an invoice has nothing to reverse: the first
// terminal outcome stands. Nor is a settlement refunded in part or whole (refunds succeeded or
// under way) reversed: the customer has money back that the failure says never came, which an
// operator settles with the provider; the session stays `success` and the event is recorded.
// While a reversal holds the session, refunds wait (409), so none starts under it.

export type FailOutcome =
  | { kind: 'failed'; session: PaymentSessionApi }
  /** It had succeeded: its settlement is reversed and it is `failed` now. */
  | { kind: 'reversed'; session: PaymentSessionApi }
  /** Failed or cancelled already: nothing done. */
  | { kind: 'terminal'; session: PaymentSessionApi }
  /** It had succeeded and was refunded in part or whole: not reversed, nothing done. */
  | { kind: 'refunded'; session: PaymentSessionApi };

export type AlsoRecordFailure = (u: UnitOfWork, outcome: FailOutcome) => Promise<void>;

/** A reversal as decided; JSON, kept in its intent. */
export interface ReversalPlan {
  sessionId: string;
  invoiceId: string;
  resolvedBy: string;
}

async function emitFailure(u: UnitOfWork, session: PaymentSessionApi, reversed: boolean) {
  if (reversed) await u.emit('payment.reversed', session);
  await u.emit('payment.failed', session);
  if (session.invoiceId)
    await u.emit('invoice.failed', {
      resourceType: 'invoice',
      resourceId: session.invoiceId,
      paymentSessionId: session.id,
    });
}

/** In the unit of work: the locked session `failed` (reversed when it had succeeded), its events. */
async function commitFailure(
  u: UnitOfWork,
  sessionId: string,
  resolvedBy: string,
  claim: string | null,
): Promise<FailOutcome> {
  const row = await lockSession(u.tx, u.ctx.tenantId, sessionId);
  if (!row) throw notFound('Payment session');
  if (row.status === 'failed' || row.status === 'cancelled')
    return { kind: 'terminal', session: presentSession(row) };
  if (row.operationKey !== claim) throw sessionBusy();
  // Without a settlement there is nothing to reverse: the first terminal outcome stands. A
  // settlement that committed after this failure was decided is reversed by the retry.
  if (row.status === 'success' && !row.invoiceId) return { kind: 'terminal', session: presentSession(row) };
  if (row.status === 'success' && row.refundedCents > 0)
    return { kind: 'refunded', session: presentSession(row) };
  if (row.status === 'success' && claim === null) throw sessionBusy();
  const reversed = row.status === 'success';
  const session = await resolveSessionRow(u.tx, u.ctx.tenantId, row.id, 'failed', resolvedBy, u.now);
  await emitFailure(u, session, reversed);
  return { kind: reversed ? 'reversed' : 'failed', session };
}

type Decision = { row: PaymentSessionRow; intent: Intent<ReversalPlan> | null };

/** Under the row lock: a settled session is claimed for the reversal and its intent committed. */
async function decide(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: Pick<OperationKey, 'id'>,
  input: { sessionId: string; resolvedBy: string },
): Promise<Decision> {
  return deps.db.transaction(async (tx) => {
    const row = await lockSession(tx, ctx.tenantId, input.sessionId);
    if (!row) throw notFound('Payment session');
    if (row.operationKey !== null && row.operationKey !== key.id) throw sessionBusy();
    if (row.status !== 'success' || !row.invoiceId || row.refundedCents > 0) return { row, intent: null };
    await claimSession(tx, ctx.tenantId, row.id, key.id);
    const intent = await beginIntent(tx, deps, ctx, key, {
      operation: 'payments.reverse',
      recovery: 'roll_forward',
      subject: { type: 'payment_session', id: row.id },
      plan: { sessionId: row.id, invoiceId: row.invoiceId, resolvedBy: input.resolvedBy },
      steps: [{ step: 'reverse', kind: 'reverse_payment' }],
    });
    return { row, intent };
  });
}

async function executeReversal(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<FailOutcome>,
  intent: Intent<ReversalPlan>,
  also?: AlsoRecordFailure,
  resolvedBy: 'operation' | 'reconciler' = 'operation',
): Promise<FailOutcome> {
  const plan = intent.plan;
  const adapter: BillingAdapter | null = await deps.billing.forTenant(deps.db, ctx.tenantId);
  try {
    if (!adapter)
      throw new AppError(
        'conflict',
        'The tenant has no active billing integration to reverse the payment in',
      );
    const reversed = await intent.call(
      'reverse',
      (idempotencyKey) =>
        adapter.reversePayment(plan.invoiceId, { paymentReference: plan.sessionId, idempotencyKey }),
      () => ({ invoiceId: plan.invoiceId }),
    );
    if (!reversed.ok)
      throw new AppError(
        'conflict',
        `The billing system refused to reverse the payment: ${reversed.failure.message}`,
      );
    return await runUnitOfWork(deps, ctx, key, async (u) => {
      const outcome = await commitFailure(u, plan.sessionId, plan.resolvedBy, key.id);
      await u.emit('invoice.reopened', {
        resourceType: 'invoice',
        resourceId: reversed.value.id,
        invoice: presentInvoice(reversed.value),
        paymentSessionId: plan.sessionId,
      });
      await also?.(u, outcome);
      await intent.complete(u, resolvedBy);
      return outcome;
    });
  } catch (err) {
    await abandonIntent(deps, intent, adapter, err, releaseSession(ctx.tenantId, plan.sessionId, key.id));
    throw err;
  }
}

/**
 * Moves a session to `failed`: a pending one at once; one that succeeded by reversing its
 * settlement first. `also` records the caller's facts (the provider event) in the same unit.
 */
export async function failSession(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<FailOutcome>,
  input: { sessionId: string; resolvedBy: string },
  also?: AlsoRecordFailure,
): Promise<FailOutcome> {
  const decided = await decide(deps, ctx, key, input);
  if (decided.intent) return executeReversal(deps, ctx, key, decided.intent, also);
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const outcome = await commitFailure(u, input.sessionId, input.resolvedBy, null);
    await also?.(u, outcome);
    return outcome;
  });
}

/** The reconciler finishing a reversal left pending: the same call (same key), then the commit. */
export const resumeReversal: ResumeIntent = async (deps, intent) => {
  const plan = intent.plan as ReversalPlan;
  const ctx = intent.context;
  const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
  const release = releaseSession(ctx.tenantId, plan.sessionId, intent.row.operationId);
  if (adapter && !(await anyCallTookEffect(deps, intent, adapter, release))) return 'abandoned';
  const key = { id: intent.row.operationId };
  await executeReversal(deps, ctx, key, intent as Intent<ReversalPlan>, undefined, 'reconciler');
  return 'completed';
};
