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
import { applyCreditOnIssue } from '../credits/index.js';
import { billedAheadUntil } from './amounts/figures.js';
import { nextPeriod, periodEnd } from './amounts/periods.js';
import { emitEntitlementsChanged } from './entitlements/grants.js';
import { getSubscription, lockForChange, type SubscriptionRow, updateSubscription } from './service.js';
import {
  at,
  billingValue,
  claimAndBegin,
  contextOf,
  emitInvoice,
  eventData,
  openSession,
  snapshot,
  tookEffect,
  underClaim,
} from './shared.js';
import type { BillingInterval, PendingChange } from './tables.js';

// Renewal at a period end (the scheduler, or POST /subscriptions/{id}/renew once due): into the
// next period, a pending change applied first (the end of a subscription cancelled at its period
// end is in end.ts). Before the period end, POST .../renew bills the next period early
// (`billedThrough`); at the period end the subscription then moves into it without a second
// invoice or payment session.

/**
 * `due`: the period has ended; the next one starts now, invoiced. `early`: the period runs on; the
 * next one is invoiced now and `billedThrough` set to its end. `prebilled`: the period has ended
 * and the next one was billed early; it starts now, invoicing nothing.
 */
export type RenewalKind = 'due' | 'early' | 'prebilled';

/** A renewal as decided; JSON, kept in its intent. */
export interface RenewalPlan {
  subscriptionId: string;
  version: number;
  billingSubscriptionId: string | null;
  pending: PendingChange | null;
  interval: BillingInterval;
  anchor: string;
  /** The period the renewal covers (for `early`, the one after the current period). */
  periodStart: string;
  periodEnd: string;
  priceCents: number;
  /** Absent in plans stored before early renewals existed: `due`. */
  kind?: RenewalKind;
  /** `early`, billing-linked: the invoice for the period billed in advance. */
  advanceInvoice?: { accountId: string; currency: string; description: string } | null;
  /** `prebilled`: the pending change is for the end of the period billed early; it stays pending. */
  keepsPending?: boolean;
  /** `prebilled`, `pending_cancellation`: runs the period it paid for, still ending; here only. */
  ending?: boolean;
}

/** What a renewal did: the subscription after it and the period it covers. */
export interface RenewalResult {
  subscription: SubscriptionRow;
  kind: RenewalKind;
  renewedPeriod: { start: string; end: string };
  invoice: Invoice | null;
  paymentSessionId: string | null;
}

/**
 * Why renewing `sub` at `now` is refused (the error to throw), or null when it goes through:
 * cancelled or pending cancellation: 409 conflict; not due with the next period billed already,
 * or with a change pending for the period end: 409 subscription_not_due.
 */
export function renewalRefusal(
  sub: Pick<SubscriptionRow, 'id' | 'status' | 'currentPeriodEnd' | 'billedThrough'>,
  now: Date,
): AppError | null {
  if (sub.status === 'cancelled') return new AppError('conflict', 'The subscription is cancelled');
  if (sub.status === 'pending_cancellation')
    return new AppError('conflict', 'The subscription ends at its period end; it does not renew');
  const end = sub.currentPeriodEnd;
  if (now.getTime() >= end.getTime()) return null;
  const notDue = (message: string) =>
    new AppError('subscription_not_due', message, undefined, undefined, [
      action('self', 'GET', `/subscriptions/${sub.id}`, 'read'),
    ]);
  if (billedAheadUntil(sub))
    return notDue(
      `The next period (${end.toISOString()} to ${sub.billedThrough?.toISOString()}) is already billed; ` +
        `the subscription moves into it at ${end.toISOString()}`,
    );
  if (sub.status === 'pending_change')
    return notDue(
      `A change is pending for the period end; the subscription renews with it at ${end.toISOString()}`,
    );
  return null;
}

export function planRenewal(deps: ServiceDeps, sub: SubscriptionRow, ending = false): RenewalPlan {
  const now = deps.clock.now();
  const refusal = ending ? null : renewalRefusal(sub, now);
  if (refusal) throw refusal;
  const kind: RenewalKind =
    now.getTime() < sub.currentPeriodEnd.getTime() ? 'early' : billedAheadUntil(sub) ? 'prebilled' : 'due';
  // Early renewal is refused with a change pending: the period billed early is on the current plan.
  // A change decided after it applies when that period ends (a change from before, at its start).
  const keepsPending =
    kind === 'prebilled' &&
    sub.pendingChange !== null &&
    new Date(sub.pendingChange.effectiveAt).getTime() > sub.currentPeriodEnd.getTime();
  const pending = keepsPending ? null : sub.pendingChange;
  const interval: BillingInterval = pending?.billingInterval ?? sub.billingInterval;
  const switches = interval !== sub.billingInterval;
  const anchor = switches ? sub.currentPeriodEnd : sub.billingAnchor;
  const period = switches
    ? { start: sub.currentPeriodEnd, end: periodEnd(sub.currentPeriodEnd, interval, 1) }
    : nextPeriod(anchor, interval, sub.currentPeriodEnd);
  const start = period.start.toISOString();
  const end = period.end.toISOString();
  return {
    subscriptionId: sub.id,
    version: sub.version,
    billingSubscriptionId: sub.billingSubscriptionId,
    pending,
    interval,
    anchor: anchor.toISOString(),
    periodStart: start,
    periodEnd: end,
    priceCents: pending?.priceCents ?? sub.priceCents,
    kind,
    ...(keepsPending ? { keepsPending } : {}),
    ...(ending ? { ending } : {}),
    advanceInvoice:
      kind === 'early' && sub.billingSubscriptionId && sub.billingAccountId
        ? {
            accountId: sub.billingAccountId,
            currency: sub.currency,
            description: `${sub.productName} x ${sub.quantity}, ${start.slice(0, 10)} to ${end.slice(0, 10)} (billed in advance)`,
          }
        : null,
  };
}

const kindOf = (plan: RenewalPlan): RenewalKind => plan.kind ?? 'due';

function renewalSteps(plan: RenewalPlan): IntentStep[] {
  if (!plan.billingSubscriptionId || plan.ending) return [];
  if (kindOf(plan) === 'early') return [{ step: 'invoice', kind: 'create_invoice' }];
  return [
    ...(plan.pending ? [{ step: 'pending-change', kind: 'change_subscription' as const }] : []),
    { step: 'renew', kind: 'renew_subscription' },
  ];
}

async function renewInBilling(intent: Intent<RenewalPlan>, adapter: BillingAdapter, plan: RenewalPlan) {
  const billingId = plan.billingSubscriptionId as string;
  if (kindOf(plan) === 'early') {
    // The next period, invoiced now; the billing subscription's period moves when it starts.
    const invoice = plan.advanceInvoice;
    if (!invoice)
      throw new AppError('conflict', 'The subscription is billing-linked but has no billing account');
    return billingValue(
      await intent.call(
        'invoice',
        (idempotencyKey) =>
          adapter.createInvoice({
            accountId: invoice.accountId,
            currency: invoice.currency,
            lines: [{ description: invoice.description, quantity: 1, unitAmountCents: plan.priceCents }],
            subscriptionId: billingId,
            idempotencyKey,
          }),
        (v) => ({ invoiceId: v.id }),
      ),
    );
  }
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
          // Billed by an early renewal: the period only moves.
          ...(kindOf(plan) === 'prebilled' ? { invoice: false } : {}),
          idempotencyKey,
        }),
      (v) => ({ subscriptionId: v.subscription.id, ...(v.invoice ? { invoiceId: v.invoice.id } : {}) }),
    ),
  ).invoice;
}

const resultOf = (
  plan: RenewalPlan,
  subscription: SubscriptionRow,
  invoice: Invoice | null,
  sessionId: string | null,
): RenewalResult => ({
  subscription,
  kind: kindOf(plan),
  renewedPeriod: { start: plan.periodStart, end: plan.periodEnd },
  invoice,
  paymentSessionId: sessionId,
});

/** Early: the next period billed (`billedThrough`), its payment session; the current period runs on. */
async function commitEarlyRenewal(
  u: UnitOfWork,
  plan: RenewalPlan,
  invoice: Invoice | null,
  claim: string | null,
): Promise<RenewalResult> {
  const before = await lockForChange(u.tx, u.ctx.tenantId, plan.subscriptionId, plan.version, claim);
  const after = await updateSubscription(u.tx, u.ctx.tenantId, plan.subscriptionId, {
    billedThrough: at(plan.periodEnd),
    version: before.version + 1,
    operationKey: null,
    operationAt: null,
    updatedAt: u.now,
  });
  const session = await openSession(u, after, invoice, plan.priceCents);
  await u.audit({
    action: 'subscription.renew',
    resourceType: 'subscription',
    resourceId: plan.subscriptionId,
    details: {
      renewal: 'early',
      billedPeriodStart: plan.periodStart,
      billedPeriodEnd: plan.periodEnd,
      priceCents: plan.priceCents,
      invoiceId: invoice?.id ?? null,
      paymentSessionId: session?.id ?? null,
    },
  });
  await emitInvoice(u, invoice, plan.subscriptionId);
  if (session) await u.emit('payment.session_created', session);
  return resultOf(plan, after, invoice, session?.id ?? null);
}

/** The next period (billed now, or early before), its payment session, the audit entries and events. */
async function commitRenewal(
  u: UnitOfWork,
  plan: RenewalPlan,
  invoice: Invoice | null,
  claim: string | null,
): Promise<RenewalResult> {
  if (kindOf(plan) === 'early') return commitEarlyRenewal(u, plan, invoice, claim);
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
    ...(plan.keepsPending || plan.ending ? {} : { status: 'active' as const, pendingChange: null }),
    version: before.version + 1,
    operationKey: null,
    operationAt: null,
    updatedAt: u.now,
  });
  // Billed by an early renewal (its invoice and session): nothing to pay again.
  const session = kindOf(plan) === 'prebilled' ? null : await openSession(u, after, invoice, plan.priceCents);
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
    await emitEntitlementsChanged(u, [[before, after]]);
  }
  await u.audit({
    action: 'subscription.renew',
    resourceType: 'subscription',
    resourceId: plan.subscriptionId,
    details: {
      renewal: kindOf(plan),
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
  return resultOf(plan, after, invoice, session?.id ?? null);
}

async function executeRenewal(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<RenewalResult>,
  plan: RenewalPlan,
  resumed?: Intent,
): Promise<RenewalResult> {
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
    // A retry taking over a pending intent finishes what was planned then, not what is due now.
    const stored = intent.plan;
    // Credit paid part of the invoice before the session for the rest is opened.
    const invoice = await applyCreditOnIssue(deps, ctx, await renewInBilling(intent, adapter, stored), key);
    return runUnitOfWork(deps, ctx, key, async (u) => {
      const result = await commitRenewal(u, stored, invoice, key.id);
      await intent.complete(u, resumed ? 'reconciler' : 'operation');
      return result;
    });
  });
}

/**
 * Renews a subscription. Due (its period ended): into the next period, invoiced, with a payment
 * session, or without either when an early renewal billed that period. Not due yet: bills the next
 * period now (invoice, payment session, `billedThrough`); the current period runs on.
 */
export async function renewSubscription(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { subscriptionId: string },
  key: OperationKey<RenewalResult>,
): Promise<RenewalResult> {
  const sub = await getSubscription(deps.db, ctx.tenantId, input.subscriptionId);
  if (!sub) throw notFound('Subscription');
  return executeRenewal(deps, ctx, key, planRenewal(deps, sub));
}

/**
 * A `pending_cancellation` subscription at its period end, the next period billed early (the
 * scheduler): into that period, still ending, invoicing nothing; its end is end.ts. The billing
 * subscription, marked to end (it refuses to renew), keeps its period and is cancelled then.
 */
export function moveIntoBilledPeriod(
  deps: ServiceDeps,
  ctx: OperationContext,
  sub: SubscriptionRow,
  key: OperationKey<RenewalResult>,
): Promise<RenewalResult> {
  return executeRenewal(deps, ctx, key, planRenewal(deps, sub, true));
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
