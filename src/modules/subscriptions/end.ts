import type { OperationContext } from '../../core/context.js';
import {
  declareOperation,
  local,
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { emitEntitlementsChanged } from './entitlements/grants.js';
import { lockForChange, type SubscriptionRow, updateSubscription } from './service.js';
import { billingValue, changesSubscription, eventData } from './shared.js';

// The end of a subscription cancelled at its period end, once that has passed (the scheduler):
// cancelled in the billing system first, then here.

/** The end of a subscription cancelled at its period end, once that has passed; JSON. */
export interface FinalCancelPlan {
  subscriptionId: string;
  version: number;
  billingSubscriptionId: string | null;
}

async function commitFinalCancel(u: UnitOfWork, plan: FinalCancelPlan, claim: string | null) {
  const before = await lockForChange(u.tx, u.ctx.tenantId, plan.subscriptionId, plan.version, claim);
  const after = await updateSubscription(u.tx, u.ctx.tenantId, plan.subscriptionId, {
    status: 'cancelled',
    cancelledAt: before.currentPeriodEnd,
    version: before.version + 1,
    operationKey: null,
    operationAt: null,
    updatedAt: u.now,
  });
  await u.audit({
    action: 'subscription.cancel',
    resourceType: 'subscription',
    resourceId: plan.subscriptionId,
    details: {
      timing: 'end_of_period',
      effectiveDate: before.currentPeriodEnd.toISOString(),
      status: 'cancelled',
    },
  });
  await u.emit('subscription.cancelled', await eventData(u, after, u.ctx.keyId));
  await emitEntitlementsChanged(u, [[before, after]]);
  return after;
}

export const endOperation = declareOperation<{
  input: SubscriptionRow;
  plan: FinalCancelPlan;
  result: SubscriptionRow;
}>({
  name: 'subscriptions.end',
  ...changesSubscription,
  async plan(run, sub) {
    const plan: FinalCancelPlan = {
      subscriptionId: sub.id,
      version: sub.version,
      billingSubscriptionId: sub.billingSubscriptionId,
    };
    if (!plan.billingSubscriptionId)
      return local(() => runUnitOfWork(run.deps, run.ctx, run.key, (u) => commitFinalCancel(u, plan, null)));
    return plan;
  },
  steps: () => [{ step: 'cancel', kind: 'cancel_subscription' }],
  async call(_run, intent, adapter) {
    const billingId = intent.plan.billingSubscriptionId as string;
    const result = await intent.call('cancel', (idempotencyKey) =>
      adapter.cancelSubscription({ subscriptionId: billingId, timing: 'immediate', idempotencyKey }),
    );
    // Already cancelled there: the two sides agree.
    if (!result.ok && result.failure.kind !== 'conflict') billingValue(result);
  },
  commit: (u, run, plan) => commitFinalCancel(u, plan, run.claim),
});

/** Ends a `pending_cancellation` subscription whose period has passed (the scheduler). */
export function endSubscription(
  deps: ServiceDeps,
  ctx: OperationContext,
  sub: SubscriptionRow,
  key: OperationKey<SubscriptionRow>,
): Promise<SubscriptionRow> {
  return endOperation.run(deps, ctx, sub, key);
}
