import { type Invoice, presentInvoice } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import {
  type AuditInput,
  declareOperation,
  declined,
  local,
  type ModuleLookups,
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import {
  getSession,
  isTerminal,
  lockSession,
  type PaymentSessionApi,
  presentSession,
  resolveSessionRow,
  sessionBusy,
} from './service.js';
import { andRecord, onSessionPayment, sessionToDecide } from './session-operation.js';

// A session's terminal state and its invoice's settlement are decided here, in one place, under
// the session: `complete` and a provider's success event both come through `settleSession`, which
// claims the session (its row lock, then `operation_key`) before the billing call and records
// the outcome under the row lock again. A provider's failure arriving meanwhile waits (409, the
// provider retries); the first terminal outcome wins.

/** A settlement as decided; JSON, kept in its intent. */
export interface SettlementPlan {
  sessionId: string;
  invoiceId: string;
  amountCents: number;
  currency: string;
  resolvedBy: string;
  /** Recorded when the session moves to success (`payment.complete`, with the proof given). */
  audit: AuditInput | null;
}

export interface SettleRequest {
  sessionId: string;
  /** `complete`, or `provider:<event id>`. */
  resolvedBy: string;
  audit?: AuditInput;
}

export type SettleOutcome =
  | { kind: 'settled'; session: PaymentSessionApi }
  /** Already terminal: nothing done. */
  | { kind: 'terminal'; session: PaymentSessionApi }
  /** The billing system refused the settlement (invoice not open, over its balance): the session stays pending. */
  | { kind: 'refused'; session: PaymentSessionApi; message: string };

/** What the caller records with the outcome, in its unit of work (an audit entry, a provider event). */
export type AlsoRecord = (u: UnitOfWork, outcome: SettleOutcome) => Promise<void>;

/** An outcome that changed nothing: a unit of work only when the caller records something with it. */
async function recordOnly(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<SettleOutcome>,
  outcome: SettleOutcome,
  also?: AlsoRecord,
): Promise<SettleOutcome> {
  if (!also) return outcome;
  return runUnitOfWork(deps, ctx, key, async (u) => {
    await also(u, outcome);
    return outcome;
  });
}

/** In the unit of work: the session `success` and its events; the claim, if any, must be `claim`. */
async function commitSuccess(
  lookups: ModuleLookups,
  u: UnitOfWork,
  plan: { sessionId: string; resolvedBy: string; audit?: AuditInput | null },
  claim: string | null,
  settled: Invoice | null,
): Promise<SettleOutcome> {
  const row = await lockSession(u.tx, u.ctx.tenantId, plan.sessionId);
  if (!row) throw notFound('Payment session');
  if (isTerminal(row.status)) return { kind: 'terminal', session: presentSession(row) };
  if (row.operationKey !== claim) throw sessionBusy();
  const session = await resolveSessionRow(u.tx, u.ctx.tenantId, row.id, 'success', plan.resolvedBy, u.now);
  if (plan.audit) await u.audit(plan.audit);
  await u.emit('payment.succeeded', session);
  // The order follows in this unit: by its invoice as settled, or by the session's amount.
  if (row.orderId)
    await lookups.moveOrderMoney(
      u,
      row.orderId,
      settled ? { invoice: settled } : { paidCents: row.amountCents },
    );
  if (settled?.status === 'paid')
    await u.emit('invoice.paid', {
      resourceType: 'invoice',
      resourceId: settled.id,
      invoice: presentInvoice(settled),
      paymentSessionId: session.id,
    });
  return { kind: 'settled', session };
}

/**
 * Moves a pending session to `success`, settling the invoice it pays first (once: the claim keeps
 * other outcomes out until this one commits). `also` records the caller's own facts in the same
 * unit of work. Terminal already, or refused by the billing system: the outcome says so and the
 * session is unchanged.
 */
export const settleOperation = declareOperation<{
  input: SettleRequest & { also?: AlsoRecord | undefined };
  plan: SettlementPlan;
  called: Invoice;
  result: SettleOutcome;
}>({
  name: 'payments.settle',
  ...onSessionPayment((row) => !isTerminal(row.status)),
  async plan(run, input) {
    const { deps, ctx, key } = run;
    const row = await sessionToDecide(run, input.sessionId);
    const session = presentSession(row);
    if (isTerminal(row.status))
      return local(() => recordOnly(deps, ctx, key, { kind: 'terminal', session }, input.also));
    if (!row.invoiceId)
      return local(() =>
        runUnitOfWork(deps, ctx, key, (u) =>
          andRecord(u, commitSuccess(deps.lookups, u, input, null, null), input.also),
        ),
      );
    return {
      sessionId: row.id,
      invoiceId: row.invoiceId,
      amountCents: row.amountCents,
      currency: row.currency,
      resolvedBy: input.resolvedBy,
      audit: input.audit ?? null,
    };
  },
  steps: () => [{ step: 'settle', kind: 'settle_invoice' }],
  noAdapter: () =>
    new AppError('conflict', 'The session pays an invoice but the tenant has no active billing integration'),
  async call({ deps, ctx, key, input }, intent, adapter) {
    const plan = intent.plan;
    const settled = await intent.call(
      'settle',
      (idempotencyKey) =>
        adapter.settleInvoice(plan.invoiceId, {
          amountCents: plan.amountCents,
          currency: plan.currency,
          paymentReference: plan.sessionId,
          idempotencyKey,
        }),
      () => ({ invoiceId: plan.invoiceId }),
    );
    if (settled.ok) return settled.value;
    return declined(settled.failure.message, async () => {
      const session = await getSession(deps.db, ctx.tenantId, plan.sessionId);
      if (!session) throw notFound('Payment session');
      const message = settled.failure.message;
      const outcome: SettleOutcome = { kind: 'refused', session: presentSession(session), message };
      return recordOnly(deps, ctx, key, outcome, input?.also);
    });
  },
  commit: (u, run, plan, settled) =>
    andRecord(u, commitSuccess(run.deps.lookups, u, plan, run.claim, settled), run.input?.also),
});

export function settleSession(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<SettleOutcome>,
  input: SettleRequest,
  also?: AlsoRecord,
): Promise<SettleOutcome> {
  return settleOperation.run(deps, ctx, { ...input, also }, key);
}
