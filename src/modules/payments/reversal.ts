import { type Invoice, presentInvoice } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import {
  declareOperation,
  local,
  type ModuleLookups,
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import {
  lockSession,
  type PaymentSessionApi,
  type PaymentSessionRow,
  presentSession,
  recordReversal,
  resolveSessionRow,
  sessionBusy,
} from './service.js';
import { andRecord, onSessionPayment, sessionToDecide } from './session-operation.js';

// A provider's failure event decides `failed` for a pending session. After `success` (terminal,
// SPEC.md) it is a dispute: the session stays `success`, what the provider said is recorded as its
// `reversal`, and the money is taken back: a settled invoice is reopened through the same
// mechanism as a settlement (claim, intent, `reversePayment`, commit), and the order it paid, if
// any, counts it as not paid, in the same unit of work; `payment.reversed` (and
// `invoice.reopened`) are emitted. A settlement refunded in part or whole (refunds succeeded or
// under way) is not reversed: the customer has money back that the failure says never came,
// which an operator settles with the provider; the event is recorded. While a reversal holds the
// session, refunds wait (409), so none starts under it.

export type FailOutcome =
  | { kind: 'failed'; session: PaymentSessionApi }
  /** It had succeeded: it stays `success`, with its `reversal` recorded and its money taken back. */
  | { kind: 'reversed'; session: PaymentSessionApi }
  /** Failed, cancelled or reversed already: nothing done. */
  | { kind: 'terminal'; session: PaymentSessionApi }
  /** It had succeeded and was refunded in part or whole: not reversed, nothing done. */
  | { kind: 'refunded'; session: PaymentSessionApi };

export type AlsoRecordFailure = (u: UnitOfWork, outcome: FailOutcome) => Promise<void>;

export interface FailRequest {
  sessionId: string;
  /** `provider:<event id>`: kept as the reversal's provider reference. */
  resolvedBy: string;
  /** The provider's failure reason, if it gave one. */
  reason?: string | undefined;
}

/** A reversal as decided; JSON, kept in its intent. */
export interface ReversalPlan {
  sessionId: string;
  invoiceId: string;
  resolvedBy: string;
  reason?: string | undefined;
}

async function emitFailure(u: UnitOfWork, session: PaymentSessionApi) {
  await u.emit('payment.failed', session);
  if (session.invoiceId)
    await u.emit('invoice.failed', {
      resourceType: 'invoice',
      resourceId: session.invoiceId,
      paymentSessionId: session.id,
    });
}

/** In the unit of work: a successful session's reversal recorded, its invoice and order following. */
async function commitReversal(
  lookups: ModuleLookups,
  u: UnitOfWork,
  row: PaymentSessionRow,
  input: FailRequest,
  reopened: Invoice | null,
): Promise<FailOutcome> {
  const session = await recordReversal(
    u.tx,
    u.ctx.tenantId,
    row.id,
    {
      reason: input.reason ?? 'provider_reported_failure',
      createdAt: iso(u.now),
      providerReference: input.resolvedBy,
    },
    u.now,
  );
  await u.emit('payment.reversed', session);
  if (reopened)
    await u.emit('invoice.reopened', {
      resourceType: 'invoice',
      resourceId: reopened.id,
      invoice: presentInvoice(reopened),
      paymentSessionId: session.id,
    });
  if (row.orderId)
    await lookups.moveOrderMoney(
      u,
      row.orderId,
      reopened ? { invoice: reopened } : { paidCents: -row.amountCents },
    );
  return { kind: 'reversed', session };
}

/** In the unit of work: the locked session `failed` when pending, reversed when it had succeeded. */
async function commitFailure(
  lookups: ModuleLookups,
  u: UnitOfWork,
  input: FailRequest,
  claim: string | null,
  reopened: Invoice | null,
): Promise<FailOutcome> {
  const row = await lockSession(u.tx, u.ctx.tenantId, input.sessionId);
  if (!row) throw notFound('Payment session');
  if (row.status === 'failed' || row.status === 'cancelled' || row.reversal)
    return { kind: 'terminal', session: presentSession(row) };
  if (row.operationKey !== claim) throw sessionBusy();
  if (row.status === 'success') {
    if (row.refundedCents > 0) return { kind: 'refunded', session: presentSession(row) };
    // A settlement that committed after this failure was decided is reversed by the retry.
    if (row.invoiceId && claim === null) throw sessionBusy();
    return commitReversal(lookups, u, row, input, reopened);
  }
  const session = await resolveSessionRow(u.tx, u.ctx.tenantId, row.id, 'failed', input.resolvedBy, u.now);
  await emitFailure(u, session);
  return { kind: 'failed', session };
}

/** A settled invoice payment, not refunded nor reversed yet: its reversal goes through the billing system. */
const reversible = (row: PaymentSessionRow) =>
  row.status === 'success' && row.invoiceId !== null && row.refundedCents === 0 && !row.reversal;

/**
 * A provider's failure: a pending session `failed` at once; one that succeeded stays `success`
 * with its `reversal`, its settlement undone first. `also` records the caller's facts (the
 * provider event) in the same unit.
 */
export const reverseOperation = declareOperation<{
  input: FailRequest & { also?: AlsoRecordFailure | undefined };
  plan: ReversalPlan;
  called: Invoice;
  result: FailOutcome;
}>({
  name: 'payments.reverse',
  ...onSessionPayment(reversible),
  async plan(run, input) {
    const { deps, ctx, key } = run;
    const row = await sessionToDecide(run, input.sessionId);
    if (!reversible(row))
      return local(() =>
        runUnitOfWork(deps, ctx, key, (u) =>
          andRecord(u, commitFailure(deps.lookups, u, input, null, null), input.also),
        ),
      );
    return {
      sessionId: row.id,
      invoiceId: row.invoiceId as string,
      resolvedBy: input.resolvedBy,
      ...(input.reason ? { reason: input.reason } : {}),
    };
  },
  steps: () => [{ step: 'reverse', kind: 'reverse_payment' }],
  noAdapter: () =>
    new AppError('conflict', 'The tenant has no active billing integration to reverse the payment in'),
  async call(_run, intent, adapter) {
    const plan = intent.plan;
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
    return reversed.value;
  },
  commit: (u, run, plan, reopened) =>
    andRecord(u, commitFailure(run.deps.lookups, u, plan, run.claim, reopened), run.input?.also),
});

export function failSession(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<FailOutcome>,
  input: FailRequest,
  also?: AlsoRecordFailure,
): Promise<FailOutcome> {
  return reverseOperation.run(deps, ctx, { ...input, also }, key);
}
