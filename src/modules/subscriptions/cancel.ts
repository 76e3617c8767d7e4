import type { BillingAdapter } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { notFound, validationFailed } from '../../core/errors.js';
import {
  type Intent,
  type OperationKey,
  type ResumeIntent,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import type { ChangeTiming } from '../price-engine/index.js';
import { quoteCancellation } from './quotes.js';
import {
  getSubscription,
  liveAddOns,
  lockForChange,
  type SubscriptionRow,
  updateSubscription,
} from './service.js';
import {
  assertSameFigures,
  billingValue,
  claimAndBegin,
  contextOf,
  eventData,
  previewInstant,
  snapshot,
  tookEffect,
  underClaim,
} from './shared.js';

/** A cancellation as decided (the preview's effective date); JSON, kept in its intent. */
export interface CancelPlan {
  subscriptionId: string;
  version: number;
  timing: ChangeTiming;
  effectiveDate: string;
  previewId: string | null;
  /** The subscription and its live add-ons that are billing-linked: each cancelled there first. */
  linked: { id: string; billingSubscriptionId: string }[];
  /** Live add-ons, cancelled with it. */
  addOnIds: string[];
}

export async function planCancel(
  deps: ServiceDeps,
  sub: SubscriptionRow,
  request: { timing?: ChangeTiming | undefined; previewId?: string | undefined },
): Promise<CancelPlan> {
  const now = deps.clock.now();
  const claims = previewInstant(request.previewId, 'cancellation', sub, now);
  if (claims && request.timing !== undefined && request.timing !== claims.t)
    throw validationFailed('previewId', 'matches', 'previewId previews another timing');
  const timing = claims?.t ?? request.timing ?? 'end_of_period';
  const figures = quoteCancellation(sub, timing, claims ? new Date(claims.a) : now);
  assertSameFigures(claims, figures);
  const addOns = sub.parentSubscriptionId ? [] : await liveAddOns(deps.db, sub.tenantId, sub.id);
  return {
    subscriptionId: sub.id,
    version: sub.version,
    timing,
    effectiveDate: figures.effectiveDate.toISOString(),
    previewId: request.previewId ?? null,
    linked: [sub, ...addOns].flatMap((s) =>
      s.billingSubscriptionId ? [{ id: s.id, billingSubscriptionId: s.billingSubscriptionId }] : [],
    ),
    addOnIds: addOns.map((a) => a.id),
  };
}

async function cancelInBilling(intent: Intent<CancelPlan>, adapter: BillingAdapter, plan: CancelPlan) {
  for (const s of plan.linked) {
    billingValue(
      await intent.call(`cancel-${s.id}`, (idempotencyKey) =>
        adapter.cancelSubscription({
          subscriptionId: s.billingSubscriptionId,
          timing: plan.timing,
          idempotencyKey,
        }),
      ),
    );
  }
}

async function commitCancel(u: UnitOfWork, plan: CancelPlan, claim: string | null): Promise<SubscriptionRow> {
  const before = await lockForChange(u.tx, u.ctx.tenantId, plan.subscriptionId, plan.version, claim);
  const immediate = plan.timing === 'immediate';
  const patch = (v: number) =>
    ({
      status: immediate ? 'cancelled' : 'pending_cancellation',
      pendingChange: null,
      cancelledAt: immediate ? new Date(plan.effectiveDate) : null,
      version: v + 1,
      operationKey: null,
      operationAt: null,
      updatedAt: u.now,
    }) as const;
  const ended: SubscriptionRow[] = [];
  for (const addOnId of plan.addOnIds) {
    const current = await getSubscription(u.tx, u.ctx.tenantId, addOnId, true);
    if (!current || current.status === 'cancelled') continue;
    ended.push(await updateSubscription(u.tx, u.ctx.tenantId, addOnId, patch(current.version)));
  }
  const after = await updateSubscription(u.tx, u.ctx.tenantId, plan.subscriptionId, patch(before.version));
  for (const row of [after, ...ended]) {
    await u.audit({
      action: 'subscription.cancel',
      resourceType: 'subscription',
      resourceId: row.id,
      details: {
        timing: plan.timing,
        effectiveDate: plan.effectiveDate,
        status: row.status,
        ...(row.id === plan.subscriptionId
          ? { before: snapshot(before), previewId: plan.previewId }
          : { parentSubscriptionId: plan.subscriptionId }),
      },
    });
    await u.emit('subscription.cancelled', await eventData(u, row, u.ctx.keyId));
  }
  return after;
}

async function executeCancel(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<SubscriptionRow>,
  plan: CancelPlan,
  resumed?: Intent,
): Promise<SubscriptionRow> {
  if (plan.linked.length === 0) return runUnitOfWork(deps, ctx, key, (u) => commitCancel(u, plan, null));
  const intent =
    (resumed as Intent<CancelPlan> | undefined) ??
    (await claimAndBegin(
      deps,
      ctx,
      key,
      { id: plan.subscriptionId, version: plan.version },
      {
        operation: 'subscriptions.cancel',
        plan,
        steps: plan.linked.map((s) => ({ step: `cancel-${s.id}`, kind: 'cancel_subscription' as const })),
      },
    ));
  return underClaim(deps, ctx, key, intent, plan.subscriptionId, async (adapter) => {
    const stored = intent.plan;
    await cancelInBilling(intent, adapter, stored);
    return runUnitOfWork(deps, ctx, key, async (u) => {
      const row = await commitCancel(u, stored, key.id);
      await intent.complete(u, resumed ? 'reconciler' : 'operation');
      return row;
    });
  });
}

/** Cancels now or at the period end, with its live add-ons; in the billing system first. */
export async function cancelSubscription(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { subscriptionId: string; timing?: ChangeTiming | undefined; previewId?: string | undefined },
  key: OperationKey<SubscriptionRow>,
): Promise<SubscriptionRow> {
  const sub = await getSubscription(deps.db, ctx.tenantId, input.subscriptionId);
  if (!sub) throw notFound('Subscription');
  return executeCancel(deps, ctx, key, await planCancel(deps, sub, input));
}

export const resumeCancel: ResumeIntent = async (deps, intent) => {
  const plan = intent.plan as CancelPlan;
  if (!(await tookEffect(deps, intent, plan.subscriptionId))) return 'abandoned';
  await executeCancel(
    deps,
    contextOf(intent),
    { id: intent.row.operationId },
    intent.plan as CancelPlan,
    intent,
  );
  return 'completed';
};
