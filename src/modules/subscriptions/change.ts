import type { BillingAdapter, Invoice } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { notFound, validationFailed } from '../../core/errors.js';
import {
  type Intent,
  type IntentStep,
  type OperationKey,
  type ResumeIntent,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import type { ChangeTiming, ProrationType } from '../catalog/index.js';
import { applyCreditOnIssue, creditHolder, grant } from '../credits/index.js';
import { assertAllowed } from '../policies/index.js';
import { missingFor, planChangeDigestInput, quotePlanChange } from './amounts/quotes.js';
import { emitEntitlementsChanged } from './entitlements/grants.js';
import { getSubscription, lockForChange, type SubscriptionRow, updateSubscription } from './service.js';
import {
  assertSameFigures,
  at,
  billingValue,
  claimAndBegin,
  contextOf,
  emitInvoice,
  eventData,
  previewInstant,
  snapshot,
  tookEffect,
  underClaim,
} from './shared.js';
import type { BillingInterval } from './tables.js';

export type ChangeRequest =
  | {
      kind: 'plan';
      targetProductId: string;
      timing?: ChangeTiming | undefined;
      previewId?: string | undefined;
    }
  | { kind: 'quantity'; quantity: number; timing?: ChangeTiming | undefined };

/** A plan or quantity change as quoted (the same figures as its preview); JSON, kept in its intent. */
export interface ChangePlan {
  subscriptionId: string;
  version: number;
  billingSubscriptionId: string | null;
  kind: 'plan' | 'quantity';
  target: { id: string; name: string };
  quantity: number;
  targetInterval: BillingInterval;
  newPriceCents: number;
  changeTiming: ChangeTiming;
  prorationType: ProrationType;
  effectiveDate: string;
  creditCents: number;
  chargeCents: number;
  netCents: number;
  /** An immediate switch to another billing interval starts a new period now. */
  newPeriod: { start: string; end: string } | null;
  ruleId: string | null;
  previewId: string | null;
  /**
   * The account whose credit ledger receives what an immediate change credits (a downgrade, fewer
   * units) of a billing-linked subscription: the account linked to its billing account; null (no
   * account is linked to it, or absent, in older plans): the billing subscription carries the
   * credit to its next invoice.
   */
  creditAccountId?: string | null;
}

/** What an immediate change credits the customer, minor units. */
const creditOf = (plan: ChangePlan) => (plan.newPeriod ? plan.creditCents : Math.max(0, -plan.netCents));

/** Quotes the change exactly as the preview does, checks a preview id and the policies. */
export async function planChange(
  deps: ServiceDeps,
  sub: SubscriptionRow,
  request: ChangeRequest,
): Promise<ChangePlan> {
  const now = deps.clock.now();
  const claims = request.kind === 'plan' ? previewInstant(request.previewId, 'plan_change', sub, now) : null;
  if (claims && request.kind === 'plan') {
    if (claims.p !== request.targetProductId)
      throw validationFailed('previewId', 'matches', 'previewId previews a change to another product');
    if (request.timing !== undefined && request.timing !== claims.t)
      throw validationFailed('previewId', 'matches', 'previewId previews another timing');
  }
  const quote = await quotePlanChange(
    deps.db,
    sub,
    request.kind === 'plan'
      ? { kind: 'plan', targetProductId: request.targetProductId }
      : { kind: 'quantity', quantity: request.quantity },
    claims ? claims.t : request.timing,
    claims ? new Date(claims.a) : now,
    missingFor.operation(request.kind === 'plan' ? 'targetProductId' : 'quantity'),
  );
  assertSameFigures(claims, planChangeDigestInput(quote));
  assertAllowed(quote.policy);
  const f = quote.figures;
  return {
    subscriptionId: sub.id,
    version: sub.version,
    billingSubscriptionId: sub.billingSubscriptionId,
    // Credit where it can pay (the account linked to the billing account); none: the billing system keeps it.
    creditAccountId: sub.billingSubscriptionId ? await creditHolder(deps, sub.tenantId, sub) : null,
    kind: quote.kind,
    target: { id: quote.target.id, name: quote.target.name },
    quantity: quote.quantity,
    targetInterval: quote.targetInterval,
    newPriceCents: f.newPriceCents,
    changeTiming: f.changeTiming,
    prorationType: f.prorationType,
    effectiveDate: f.effectiveDate.toISOString(),
    creditCents: f.creditCents,
    chargeCents: f.chargeCents,
    netCents: f.netCents,
    newPeriod: f.newPeriod
      ? { start: f.newPeriod.start.toISOString(), end: f.newPeriod.end.toISOString() }
      : null,
    ruleId: quote.rule.ruleId,
    previewId: (request.kind === 'plan' && request.previewId) || null,
  };
}

/** Billing calls: only an immediate change of a billing-linked subscription makes any. */
function changeSteps(plan: ChangePlan): IntentStep[] {
  if (plan.changeTiming !== 'immediate' || !plan.billingSubscriptionId) return [];
  return [
    { step: 'change', kind: 'change_subscription' },
    ...(plan.newPeriod ? [{ step: 'new-period', kind: 'renew_subscription' as const }] : []),
  ];
}

async function changeInBilling(intent: Intent<ChangePlan>, adapter: BillingAdapter, plan: ChangePlan) {
  const billingId = plan.billingSubscriptionId as string;
  const changed = billingValue(
    await intent.call(
      'change',
      (idempotencyKey) =>
        adapter.changeSubscription({
          subscriptionId: billingId,
          productId: plan.target.id,
          productName: plan.target.name,
          quantity: plan.quantity,
          priceCents: plan.newPriceCents,
          // A switch of interval charges its new period through the renewal below.
          chargeCents: plan.newPeriod ? 0 : Math.max(0, plan.netCents),
          creditCents: plan.creditAccountId ? 0 : creditOf(plan),
          idempotencyKey,
        }),
      (v) => ({ subscriptionId: v.subscription.id, ...(v.invoice ? { invoiceId: v.invoice.id } : {}) }),
    ),
  );
  if (!plan.newPeriod) return changed.invoice;
  const period = plan.newPeriod;
  const renewed = billingValue(
    await intent.call(
      'new-period',
      (idempotencyKey) =>
        adapter.renewSubscription({
          subscriptionId: billingId,
          currentPeriodStart: period.start,
          currentPeriodEnd: period.end,
          idempotencyKey,
        }),
      (v) => ({ subscriptionId: v.subscription.id, ...(v.invoice ? { invoiceId: v.invoice.id } : {}) }),
    ),
  );
  return renewed.invoice;
}

async function commitChange(
  u: UnitOfWork,
  plan: ChangePlan,
  invoice: Invoice | null,
  claim: string | null,
): Promise<SubscriptionRow> {
  const before = await lockForChange(u.tx, u.ctx.tenantId, plan.subscriptionId, plan.version, claim);
  const common = { version: before.version + 1, operationKey: null, operationAt: null, updatedAt: u.now };
  const after =
    plan.changeTiming === 'immediate'
      ? await updateSubscription(u.tx, u.ctx.tenantId, plan.subscriptionId, {
          ...common,
          productId: plan.target.id,
          productName: plan.target.name,
          quantity: plan.quantity,
          priceCents: plan.newPriceCents,
          billingInterval: plan.targetInterval,
          status: 'active',
          pendingChange: null,
          ...(plan.newPeriod
            ? {
                billingAnchor: at(plan.newPeriod.start),
                currentPeriodStart: at(plan.newPeriod.start),
                currentPeriodEnd: at(plan.newPeriod.end),
                // A period billed early on the old interval is replaced (and credited whole).
                billedThrough: null,
              }
            : {}),
        })
      : await updateSubscription(u.tx, u.ctx.tenantId, plan.subscriptionId, {
          ...common,
          status: 'pending_change',
          pendingChange: {
            kind: plan.kind,
            productId: plan.target.id,
            productName: plan.target.name,
            quantity: plan.quantity,
            priceCents: plan.newPriceCents,
            billingInterval: plan.targetInterval,
            effectiveAt: plan.effectiveDate,
          },
        });
  await u.audit({
    action: 'subscription.change',
    resourceType: 'subscription',
    resourceId: plan.subscriptionId,
    details: {
      change: plan.kind,
      before: snapshot(before),
      after: snapshot(after),
      rule: plan.ruleId,
      changeTiming: plan.changeTiming,
      prorationType: plan.prorationType,
      effectiveDate: plan.effectiveDate,
      creditCents: plan.creditCents,
      chargeCents: plan.chargeCents,
      netCents: plan.netCents,
      invoiceId: invoice?.id ?? null,
      previewId: plan.previewId,
    },
  });
  const credit = plan.changeTiming === 'immediate' && plan.creditAccountId ? creditOf(plan) : 0;
  if (credit > 0)
    await grant(u, {
      accountId: plan.creditAccountId as string,
      amountCents: credit,
      currency: before.currency,
      reason: `${plan.kind === 'plan' ? 'plan change' : 'quantity change'} of subscription ${plan.subscriptionId}`,
      sourceType: 'subscription',
      sourceId: plan.subscriptionId,
    });
  await u.emit('subscription.changed', await eventData(u, after, u.ctx.keyId));
  await emitEntitlementsChanged(u, [[before, after]]);
  await emitInvoice(u, invoice, plan.subscriptionId);
  return after;
}

export interface ChangedSubscription {
  subscription: SubscriptionRow;
  invoice: Invoice | null;
}

/** Carries out a planned change: its billing calls under an intent, then the local commit. */
async function executeChange(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<ChangedSubscription>,
  plan: ChangePlan,
  resumed?: Intent,
): Promise<ChangedSubscription> {
  const steps = changeSteps(plan);
  if (steps.length === 0) {
    return runUnitOfWork(deps, ctx, key, async (u) => ({
      subscription: await commitChange(u, plan, null, null),
      invoice: null,
    }));
  }
  const intent =
    (resumed as Intent<ChangePlan> | undefined) ??
    (await claimAndBegin(
      deps,
      ctx,
      key,
      { id: plan.subscriptionId, version: plan.version },
      {
        operation: 'subscriptions.change',
        plan,
        steps,
      },
    ));
  return underClaim(deps, ctx, key, intent, plan.subscriptionId, async (adapter) => {
    // A retry (or the reconciler) that took the intent over continues its stored plan.
    const stored = intent.plan;
    const invoice = await applyCreditOnIssue(deps, ctx, await changeInBilling(intent, adapter, stored), key);
    return runUnitOfWork(deps, ctx, key, async (u) => {
      const subscription = await commitChange(u, stored, invoice, key.id);
      await intent.complete(u, resumed ? 'reconciler' : 'operation');
      return { subscription, invoice };
    });
  });
}

/** Change-plan and change-quantity: the figures its preview showed, in the billing system first. */
export async function changeSubscription(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { subscriptionId: string; change: ChangeRequest },
  key: OperationKey<ChangedSubscription>,
): Promise<ChangedSubscription> {
  const sub = await getSubscription(deps.db, ctx.tenantId, input.subscriptionId);
  if (!sub) throw notFound('Subscription');
  return executeChange(deps, ctx, key, await planChange(deps, sub, input.change));
}

/** The reconciler finishing a change left pending: the remaining calls, then the commit. */
export const resumeChange: ResumeIntent = async (deps, intent) => {
  const plan = intent.plan as ChangePlan;
  if (!(await tookEffect(deps, intent, plan.subscriptionId))) return 'abandoned';
  await executeChange(deps, contextOf(intent), { id: intent.row.operationId }, plan, intent);
  return 'completed';
};
