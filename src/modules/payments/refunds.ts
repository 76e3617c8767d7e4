import { type BillingResult, type Invoice, requireCapability } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import {
  declareOperation,
  local,
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
} from '../../unit-of-work/index.js';
import { legacyRestock, moveRefundRestock, planRefundRestock } from './refund-restock.js';
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
import { getSession, lockSession } from './service.js';
import { refunds } from './tables.js';

// A refund gives back part or all of a successful payment session. The amount is reserved on the
// session (`refunded_cents`, under its row lock) together with the refund row, so parallel refunds
// never give back more than was paid: the second one that would overdraw is refused
// (`refund_exceeds_remaining`). A session paying an invoice has the refund recorded in the billing
// system (a credit note against the invoice's payment) through an intent, like every billing
// effect; one without an invoice is refunded locally at once.

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
    const restock = await planRefundRestock(u.tx, ctx.tenantId, row, input);
    const refund = newRefundRow(ctx.tenantId, row, input, amount, 'succeeded', u.now, restock?.lines ?? null);
    await u.tx.insert(refunds).values(refund);
    if (restock) refund.restock = await moveRefundRestock(u, refund.id, restock);
    await moveRefunded(u.tx, ctx.tenantId, row.id, amount);
    const presented = presentRefund(refund);
    await emitCreated(u, presented);
    await u.emit('refund.succeeded', presented);
    if (row.orderId) await deps.lookups.moveOrderMoney(u, row.orderId, { refundedCents: amount });
    return presented;
  });
}

/**
 * Refunds `amountCents` (default: what is left) of a successful payment session. Over what is left:
 * 409 refund_exceeds_remaining; not successful: 409 payment_not_refundable; a billing system
 * without refunds: 501 capability_unavailable.
 */
export const refundOperation = declareOperation<{
  input: RefundRequest;
  plan: RefundPlan;
  decided: RefundRequest;
  called: BillingResult<Invoice>;
  result: RefundApi;
}>({
  name: 'payments.refund',
  recovery: 'roll_forward',
  async plan(run, input) {
    const { deps, ctx, key } = run;
    const row = await getSession(deps.db, ctx.tenantId, input.sessionId);
    if (!row) throw notFound('Payment session');
    if (!row.invoiceId) return local(() => refundLocally(deps, ctx, key, input));
    const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
    if (adapter) requireCapability(adapter, 'refunds');
    return input;
  },
  // Under the session lock: the amount checked against what is left and reserved with a pending refund.
  async reserve(tx, { deps, ctx }, input) {
    const row = await lockSession(tx, ctx.tenantId, input.sessionId);
    if (!row) throw notFound('Payment session');
    return reserve(tx, ctx.tenantId, row, input, refundAmount(row, input), deps.clock.now());
  },
  subject: (plan) => ({ type: 'refund', id: plan.refundId }),
  steps: () => [{ step: 'refund', kind: 'refund_payment' }],
  adapter: (deps, tenantId) => deps.billing.forTenant(deps.db, tenantId),
  noAdapter: () =>
    new AppError('conflict', 'The tenant has no active billing integration to record the refund in'),
  async call(run, intent, adapter) {
    const result = await refundCall(intent, 'refund', adapter, intent.plan);
    // Refused on a retry after an earlier attempt's outcome was unknown: the refund is known and
    // fails visibly. Refused at once: the request fails and leaves nothing.
    if (!result.ok && !run.resumed)
      throw new AppError('conflict', `The billing system refused the refund: ${result.failure.message}`);
    return result;
  },
  async commit(u, run, plan, result) {
    if (result.ok) {
      const restock =
        plan.restock ??
        (plan.restockOrderId ? await legacyRestock(u.tx, u.ctx.tenantId, plan.restockOrderId) : null);
      if (restock) await moveRefundRestock(u, plan.refundId, restock);
      return commitRefund(run.deps.lookups, u, plan);
    }
    const failed = await setStatus(u, plan, 'failed', result.failure.message);
    await moveRefunded(u.tx, u.ctx.tenantId, plan.sessionId, -plan.amountCents);
    await emitCreated(u, failed);
    await u.emit('refund.failed', failed);
    return failed;
  },
  release: (tx, tenantId, plan) => dropRefund(tenantId, plan)(tx),
});

export function createRefund(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: RefundRequest,
  key: OperationKey<RefundApi>,
): Promise<RefundApi> {
  return refundOperation.run(deps, ctx, input, key);
}
