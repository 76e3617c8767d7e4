import type { OperationContext } from '../../core/context.js';
import {
  type Intent,
  type OperationKey,
  type ResumeIntent,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { emitEntitlementsChanged } from './entitlements/grants.js';
import { lockForChange, type SubscriptionRow, updateSubscription } from './service.js';
import { billingValue, claimAndBegin, contextOf, eventData, tookEffect, underClaim } from './shared.js';

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

async function executeFinalCancel(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<SubscriptionRow>,
  plan: FinalCancelPlan,
  resumed?: Intent,
): Promise<SubscriptionRow> {
  if (!plan.billingSubscriptionId)
    return runUnitOfWork(deps, ctx, key, (u) => commitFinalCancel(u, plan, null));
  const billingId = plan.billingSubscriptionId;
  const intent =
    (resumed as Intent<FinalCancelPlan> | undefined) ??
    (await claimAndBegin(
      deps,
      ctx,
      key,
      { id: plan.subscriptionId, version: plan.version },
      {
        operation: 'subscriptions.end',
        plan,
        steps: [{ step: 'cancel', kind: 'cancel_subscription' }],
      },
    ));
  return underClaim(deps, ctx, key, intent, plan.subscriptionId, async (adapter) => {
    const result = await intent.call('cancel', (idempotencyKey) =>
      adapter.cancelSubscription({ subscriptionId: billingId, timing: 'immediate', idempotencyKey }),
    );
    // Already cancelled there: the two sides agree.
    if (!result.ok && result.failure.kind !== 'conflict') billingValue(result);
    return runUnitOfWork(deps, ctx, key, async (u) => {
      const row = await commitFinalCancel(u, intent.plan, key.id);
      await intent.complete(u, resumed ? 'reconciler' : 'operation');
      return row;
    });
  });
}

/** Ends a `pending_cancellation` subscription whose period has passed (the scheduler). */
export function endSubscription(
  deps: ServiceDeps,
  ctx: OperationContext,
  sub: SubscriptionRow,
  key: OperationKey<SubscriptionRow>,
): Promise<SubscriptionRow> {
  const plan = {
    subscriptionId: sub.id,
    version: sub.version,
    billingSubscriptionId: sub.billingSubscriptionId,
  };
  return executeFinalCancel(deps, ctx, key, plan);
}

export const resumeEnd: ResumeIntent = async (deps, intent) => {
  const plan = intent.plan as FinalCancelPlan;
  if (!(await tookEffect(deps, intent, plan.subscriptionId))) return 'abandoned';
  await executeFinalCancel(
    deps,
    contextOf(intent),
    { id: intent.row.operationId },
    intent.plan as FinalCancelPlan,
    intent,
  );
  return 'completed';
};
