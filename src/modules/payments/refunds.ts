import { type BillingAdapter, requireCapability } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import {
  abandonIntent,
  anyCallTookEffect,
  beginIntent,
  type Intent,
  type OperationKey,
  pendingPlanOf,
  type ResumeIntent,
  runUnitOfWork,
  type ServiceDeps,
} from '../../unit-of-work/index.js';
import {
  commitRefund,
  dropRefund,
  emitCreated,
  moveRefunded,
  newRefundRow,
  presentRefund,
  type RefundApi,
  type RefundPlan,
  type RefundRequest,
  refundAmount,
  refundCall,
  reserve,
  setStatus,
} from './refund-store.js';
import { lockSession } from './service.js';
import { refunds } from './tables.js';

// A refund gives back part or all of a successful payment session. The amount is reserved on the
// session (`refunded_cents`, under its row lock) together with the refund row, so parallel refunds
// never give back more than was paid: the second one that would overdraw is refused
// (`refund_exceeds_remaining`). A session paying an invoice has the refund recorded in the billing
// system (a credit note against the invoice's payment) through an intent, like every billing
// effect; one without an invoice is refunded locally at once.

const noIntegration = () =>
  new AppError('conflict', 'The tenant has no active billing integration to record the refund in');

/** A session without an invoice: nothing to record in the billing system; refunded at once. */
function refundLocally(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<RefundApi>,
  input: RefundRequest,
): Promise<RefundApi> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const row = await lockSession(u.tx, ctx.tenantId, input.sessionId);
    if (!row) throw notFound('Payment session');
    const amount = refundAmount(row, input);
    const refund = newRefundRow(ctx.tenantId, row, input, amount, 'succeeded', u.now);
    await u.tx.insert(refunds).values(refund);
    await moveRefunded(u.tx, ctx.tenantId, row.id, amount);
    const presented = presentRefund(refund);
    await emitCreated(u, presented);
    await u.emit('refund.succeeded', presented);
    if (row.orderId) await deps.lookups.moveOrderMoney(u, row.orderId, { refundedCents: amount });
    return presented;
  });
}

type Decision = { kind: 'local' } | { kind: 'billing'; intent: Intent<RefundPlan>; resumed: boolean };

/** Under the session lock: the amount reserved with a pending refund and its intent (or a retry's). */
function decide(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<RefundApi>,
  input: RefundRequest,
  adapter: BillingAdapter | null,
): Promise<Decision> {
  return deps.db.transaction(async (tx) => {
    const row = await lockSession(tx, ctx.tenantId, input.sessionId);
    if (!row) throw notFound('Payment session');
    const spec = (plan: RefundPlan) => ({
      operation: 'payments.refund' as const,
      recovery: 'roll_forward' as const,
      subject: { type: 'refund', id: plan.refundId },
      plan,
      steps: [{ step: 'refund', kind: 'refund_payment' as const }],
    });
    const earlier = await pendingPlanOf<RefundPlan>(tx, ctx.tenantId, key.id);
    if (earlier)
      return { kind: 'billing', intent: await beginIntent(tx, deps, ctx, key, spec(earlier)), resumed: true };
    const amount = refundAmount(row, input);
    if (!row.invoiceId) return { kind: 'local' };
    if (!adapter) throw noIntegration();
    requireCapability(adapter, 'refunds');
    const plan = await reserve(tx, ctx.tenantId, row, input, amount, deps.clock.now());
    return { kind: 'billing', intent: await beginIntent(tx, deps, ctx, key, spec(plan)), resumed: false };
  });
}

/** The billing call with the intent's key, then the commit of its outcome. */
async function executeRefund(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<RefundApi>,
  intent: Intent<RefundPlan>,
  adapter: BillingAdapter,
  resumed: boolean,
  resolvedBy: 'operation' | 'reconciler' = 'operation',
): Promise<RefundApi> {
  const plan = intent.plan;
  try {
    const result = await refundCall(intent, 'refund', adapter, plan);
    if (!result.ok) {
      // Refused on a retry after an earlier attempt's outcome was unknown: the refund is known and
      // fails visibly. Refused at once: the request fails and leaves nothing.
      if (!resumed)
        throw new AppError('conflict', `The billing system refused the refund: ${result.failure.message}`);
      return await runUnitOfWork(deps, ctx, key, async (u) => {
        const failed = await setStatus(u, plan, 'failed', result.failure.message);
        await moveRefunded(u.tx, ctx.tenantId, plan.sessionId, -plan.amountCents);
        await emitCreated(u, failed);
        await u.emit('refund.failed', failed);
        await intent.complete(u, resolvedBy);
        return failed;
      });
    }
    return await runUnitOfWork(deps, ctx, key, async (u) => {
      const done = await commitRefund(deps.lookups, u, plan);
      await intent.complete(u, resolvedBy);
      return done;
    });
  } catch (err) {
    await abandonIntent(deps, intent, adapter, err, dropRefund(ctx.tenantId, plan));
    throw err;
  }
}

/**
 * Refunds `amountCents` (default: what is left) of a successful payment session. Over what is left:
 * 409 refund_exceeds_remaining; not successful: 409 payment_not_refundable; a billing system
 * without refunds: 501 capability_unavailable.
 */
export async function createRefund(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: RefundRequest,
  key: OperationKey<RefundApi>,
): Promise<RefundApi> {
  const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
  const decided = await decide(deps, ctx, key, input, adapter);
  if (decided.kind === 'local') return refundLocally(deps, ctx, key, input);
  if (!adapter)
    throw new AppError('conflict', 'The tenant has no active billing integration to record the refund in');
  return executeRefund(deps, ctx, key, decided.intent, adapter, decided.resumed);
}

/** The reconciler finishing a refund left pending: the same call (same key), then the commit. */
export const resumeRefund: ResumeIntent = async (deps, intent) => {
  const plan = intent.plan as RefundPlan;
  const ctx = intent.context;
  const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
  if (!adapter) throw new Error('no billing integration to finish the refund with');
  if (!(await anyCallTookEffect(deps, intent, adapter, dropRefund(ctx.tenantId, plan)))) return 'abandoned';
  await executeRefund(
    deps,
    ctx,
    { id: intent.row.operationId },
    intent as Intent<RefundPlan>,
    adapter,
    true,
    'reconciler',
  );
  return 'completed';
};
