import type { BillingAdapter, Invoice } from '../../billing/index.js';
import { action } from '../../core/actions.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import {
  type Intent,
  type IntentStep,
  type OperationKey,
  type ResumeIntent,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { insertSession, presentSession } from '../payments/index.js';
import { nextPeriod, periodEnd } from './periods.js';
import { getSubscription, lockForChange, type SubscriptionRow, updateSubscription } from './service.js';
import {
  at,
  billingValue,
  claimAndBegin,
  contextOf,
  emitInvoice,
  eventData,
  snapshot,
  tookEffect,
  underClaim,
} from './shared.js';
import type { BillingInterval, PendingChange } from './tables.js';

// What happens at a period end (the scheduler, or POST /subscriptions/{id}/renew once due): a
// renewal into the next period (a pending change applied first), or the end of a subscription
// cancelled at its period end.

/** A renewal as decided; JSON, kept in its intent. */
export interface RenewalPlan {
  subscriptionId: string;
  version: number;
  billingSubscriptionId: string | null;
  pending: PendingChange | null;
  interval: BillingInterval;
  anchor: string;
  periodStart: string;
  periodEnd: string;
  priceCents: number;
}

export function planRenewal(deps: ServiceDeps, sub: SubscriptionRow): RenewalPlan {
  if (sub.status === 'cancelled') throw new AppError('conflict', 'The subscription is cancelled');
  if (sub.status === 'pending_cancellation')
    throw new AppError('conflict', 'The subscription ends at its period end; it does not renew');
  if (deps.clock.now().getTime() < sub.currentPeriodEnd.getTime())
    throw new AppError(
      'subscription_not_due',
      `The subscription is not due for renewal until ${sub.currentPeriodEnd.toISOString()}`,
      undefined,
      undefined,
      [action('self', 'GET', `/subscriptions/${sub.id}`, 'read')],
    );
  const pending = sub.pendingChange;
  const interval: BillingInterval = pending?.billingInterval ?? sub.billingInterval;
  const switches = interval !== sub.billingInterval;
  const anchor = switches ? sub.currentPeriodEnd : sub.billingAnchor;
  const period = switches
    ? { start: sub.currentPeriodEnd, end: periodEnd(sub.currentPeriodEnd, interval, 1) }
    : nextPeriod(anchor, interval, sub.currentPeriodEnd);
  return {
    subscriptionId: sub.id,
    version: sub.version,
    billingSubscriptionId: sub.billingSubscriptionId,
    pending,
    interval,
    anchor: anchor.toISOString(),
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
    priceCents: pending?.priceCents ?? sub.priceCents,
  };
}

function renewalSteps(plan: RenewalPlan): IntentStep[] {
  if (!plan.billingSubscriptionId) return [];
  return [
    ...(plan.pending ? [{ step: 'pending-change', kind: 'change_subscription' as const }] : []),
    { step: 'renew', kind: 'renew_subscription' },
  ];
}

async function renewInBilling(intent: Intent<RenewalPlan>, adapter: BillingAdapter, plan: RenewalPlan) {
  const billingId = plan.billingSubscriptionId as string;
  const pending = plan.pending;
  if (pending)
    billingValue(
      await intent.call('pending-change', (idempotencyKey) =>
        adapter.changeSubscription({
          subscriptionId: billingId,
          productId: pending.productId,
          productName: pending.productName,
          quantity: pending.quantity,
          priceCents: pending.priceCents,
          idempotencyKey,
        }),
      ),
    );
  return billingValue(
    await intent.call(
      'renew',
      (idempotencyKey) =>
        adapter.renewSubscription({
          subscriptionId: billingId,
          currentPeriodStart: plan.periodStart,
          currentPeriodEnd: plan.periodEnd,
          idempotencyKey,
        }),
      (v) => ({ subscriptionId: v.subscription.id, ...(v.invoice ? { invoiceId: v.invoice.id } : {}) }),
    ),
  ).invoice;
}

/** The next period, its payment session, the audit entries and events. */
async function commitRenewal(
  u: UnitOfWork,
  plan: RenewalPlan,
  invoice: Invoice | null,
  claim: string | null,
) {
  const before = await lockForChange(u.tx, u.ctx.tenantId, plan.subscriptionId, plan.version, claim);
  const pending = plan.pending;
  const after = await updateSubscription(u.tx, u.ctx.tenantId, plan.subscriptionId, {
    ...(pending
      ? { productId: pending.productId, productName: pending.productName, quantity: pending.quantity }
      : {}),
    priceCents: plan.priceCents,
    billingInterval: plan.interval,
    billingAnchor: at(plan.anchor),
    currentPeriodStart: at(plan.periodStart),
    currentPeriodEnd: at(plan.periodEnd),
    status: 'active',
    pendingChange: null,
    version: before.version + 1,
    operationKey: null,
    operationAt: null,
    updatedAt: u.now,
  });
  const amountCents = invoice ? invoice.balanceCents : plan.priceCents;
  const accountId = after.billingAccountId ?? after.organizationId ?? after.contactId;
  const session =
    amountCents > 0 && accountId
      ? presentSession(
          await insertSession(
            u.tx,
            u.ctx.tenantId,
            {
              accountId,
              amountCents,
              currency: after.currency,
              invoiceId: invoice?.id ?? null,
              paymentPageSlug: null,
            },
            u.now,
          ),
        )
      : null;
  const userId = u.ctx.keyId;
  if (pending) {
    await u.audit({
      action: 'subscription.change',
      resourceType: 'subscription',
      resourceId: plan.subscriptionId,
      details: {
        change: pending.kind,
        before: snapshot(before),
        after: snapshot(after),
        appliedAtPeriodEnd: true,
      },
    });
    await u.emit('subscription.changed', await eventData(u, after, userId));
  }
  await u.audit({
    action: 'subscription.renew',
    resourceType: 'subscription',
    resourceId: plan.subscriptionId,
    details: {
      currentPeriodStart: plan.periodStart,
      currentPeriodEnd: plan.periodEnd,
      priceCents: plan.priceCents,
      invoiceId: invoice?.id ?? null,
      paymentSessionId: session?.id ?? null,
    },
  });
  await u.emit('subscription.renewed', await eventData(u, after, userId));
  await emitInvoice(u, invoice, plan.subscriptionId);
  if (session) await u.emit('payment.session_created', session);
  return after;
}

async function executeRenewal(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<SubscriptionRow>,
  plan: RenewalPlan,
  resumed?: Intent,
): Promise<SubscriptionRow> {
  const steps = renewalSteps(plan);
  if (steps.length === 0) return runUnitOfWork(deps, ctx, key, (u) => commitRenewal(u, plan, null, null));
  const intent =
    (resumed as Intent<RenewalPlan> | undefined) ??
    (await claimAndBegin(
      deps,
      ctx,
      key,
      { id: plan.subscriptionId, version: plan.version },
      {
        operation: 'subscriptions.renew',
        plan,
        steps,
      },
    ));
  return underClaim(deps, ctx, key, intent, plan.subscriptionId, async (adapter) => {
    const stored = intent.plan;
    const invoice = await renewInBilling(intent, adapter, stored);
    return runUnitOfWork(deps, ctx, key, async (u) => {
      const row = await commitRenewal(u, stored, invoice, key.id);
      await intent.complete(u, resumed ? 'reconciler' : 'operation');
      return row;
    });
  });
}

/** Renews a due subscription into its next period, invoiced, with a payment session for it. */
export async function renewSubscription(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { subscriptionId: string },
  key: OperationKey<SubscriptionRow>,
): Promise<SubscriptionRow> {
  const sub = await getSubscription(deps.db, ctx.tenantId, input.subscriptionId);
  if (!sub) throw notFound('Subscription');
  return executeRenewal(deps, ctx, key, planRenewal(deps, sub));
}

export const resumeRenewal: ResumeIntent = async (deps, intent) => {
  const plan = intent.plan as RenewalPlan;
  if (!(await tookEffect(deps, intent, plan.subscriptionId))) return 'abandoned';
  await executeRenewal(
    deps,
    contextOf(intent),
    { id: intent.row.operationId },
    intent.plan as RenewalPlan,
    intent,
  );
  return 'completed';
};

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
