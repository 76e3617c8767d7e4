import { type BillingAdapter, type Invoice, presentInvoice } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import {
  type AuditInput,
  abandonIntent,
  anyCallTookEffect,
  beginIntent,
  type Intent,
  type ModuleLookups,
  type OperationKey,
  type ResumeIntent,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import {
  claimSession,
  getSession,
  isTerminal,
  lockSession,
  type PaymentSessionApi,
  presentSession,
  releaseSession,
  resolveSessionRow,
  sessionBusy,
} from './service.js';

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
 * Under the session's row lock: what to do now. A session that pays an invoice is claimed for this
 * operation and its intent committed with the claim, before any billing call.
 */
async function claimForSettlement(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: Pick<OperationKey, 'id'>,
  request: SettleRequest,
): Promise<{ session: PaymentSessionApi; intent: Intent<SettlementPlan> | null; terminal: boolean }> {
  const { sessionId, resolvedBy } = request;
  return deps.db.transaction(async (tx) => {
    const row = await lockSession(tx, ctx.tenantId, sessionId);
    if (!row) throw notFound('Payment session');
    const session = presentSession(row);
    if (isTerminal(row.status)) return { session, intent: null, terminal: true };
    if (row.operationKey !== null && row.operationKey !== key.id) throw sessionBusy();
    if (!row.invoiceId) return { session, intent: null, terminal: false };
    await claimSession(tx, ctx.tenantId, row.id, key.id);
    const plan: SettlementPlan = {
      sessionId,
      invoiceId: row.invoiceId,
      amountCents: row.amountCents,
      currency: row.currency,
      resolvedBy,
      audit: request.audit ?? null,
    };
    const intent = await beginIntent(tx, deps, ctx, key, {
      operation: 'payments.settle',
      recovery: 'roll_forward',
      subject: { type: 'payment_session', id: sessionId },
      plan,
      steps: [{ step: 'settle', kind: 'settle_invoice' }],
    });
    return { session, intent, terminal: false };
  });
}

/** The billing call and the commit of a claimed settlement (a first run, a retry or the reconciler). */
async function executeSettlement(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<SettleOutcome>,
  intent: Intent<SettlementPlan>,
  also?: AlsoRecord,
  resolvedBy: 'operation' | 'reconciler' = 'operation',
): Promise<SettleOutcome> {
  const plan = intent.plan;
  const adapter: BillingAdapter | null = await deps.billing.forTenant(deps.db, ctx.tenantId);
  const release = releaseSession(ctx.tenantId, plan.sessionId, key.id);
  try {
    if (!adapter)
      throw new AppError(
        'conflict',
        'The session pays an invoice but the tenant has no active billing integration',
      );
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
    if (!settled.ok) {
      await abandonIntent(deps, intent, adapter, new Error(settled.failure.message), release);
      const session = await getSession(deps.db, ctx.tenantId, plan.sessionId);
      if (!session) throw notFound('Payment session');
      return recordOnly(
        deps,
        ctx,
        key,
        { kind: 'refused', session: presentSession(session), message: settled.failure.message },
        also,
      );
    }
    return await runUnitOfWork(deps, ctx, key, async (u) => {
      const outcome = await commitSuccess(deps.lookups, u, plan, key.id, settled.value);
      await also?.(u, outcome);
      await intent.complete(u, resolvedBy);
      return outcome;
    });
  } catch (err) {
    await abandonIntent(deps, intent, adapter, err, release);
    throw err;
  }
}

/**
 * Moves a pending session to `success`, settling the invoice it pays first (once: the claim keeps
 * other outcomes out until this one commits). `also` records the caller's own facts in the same
 * unit of work. Terminal already, or refused by the billing system: the outcome says so and the
 * session is unchanged.
 */
export async function settleSession(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<SettleOutcome>,
  input: SettleRequest,
  also?: AlsoRecord,
): Promise<SettleOutcome> {
  const claimed = await claimForSettlement(deps, ctx, key, input);
  if (claimed.intent) return executeSettlement(deps, ctx, key, claimed.intent, also);
  if (claimed.terminal)
    return recordOnly(deps, ctx, key, { kind: 'terminal', session: claimed.session }, also);
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const outcome = await commitSuccess(deps.lookups, u, input, null, null);
    await also?.(u, outcome);
    return outcome;
  });
}

/** The reconciler finishing a settlement left pending: the same call (same key), then the commit. */
export const resumeSettlement: ResumeIntent = async (deps, intent) => {
  const plan = intent.plan as SettlementPlan;
  const ctx = intent.context;
  const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
  const release = releaseSession(ctx.tenantId, plan.sessionId, intent.row.operationId);
  if (adapter && !(await anyCallTookEffect(deps, intent, adapter, release))) return 'abandoned';
  const key = { id: intent.row.operationId };
  await executeSettlement(deps, ctx, key, intent as Intent<SettlementPlan>, undefined, 'reconciler');
  return 'completed';
};
