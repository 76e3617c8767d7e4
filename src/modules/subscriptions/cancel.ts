import { type BillingAdapter, requireCapability, unwrapBilling } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import type { Tx } from '../../db/client.js';
import {
  type Intent,
  type ModuleLookups,
  type OperationKey,
  type ResumeIntent,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import type { ChangeTiming } from '../catalog/index.js';
import { creditHolder, grant } from '../credits/index.js';
import {
  commitRefund,
  dropRefund,
  type RefundPlan,
  refundableSessions,
  refundCall,
  reserveRefund,
} from '../payments/index.js';
import { billedAheadUntil, type CancellationFigures, type GiveBack, givesBack } from './amounts/figures.js';
import { quoteCancellation } from './amounts/quotes.js';
import { cancellationChanges, emitEntitlementsChanged } from './entitlements/grants.js';
import {
  getSubscription,
  liveAddOns,
  lockForChange,
  type SubscriptionRow,
  updateSubscription,
} from './service.js';
import {
  adapterFor,
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
  /**
   * A next period billed early is given back (credit or refund): `billedThrough` is cleared, so an
   * `end_of_period` cancellation ends at `currentPeriodEnd`. Absent in plans stored before: false.
   */
  givesBackBilledPeriod?: boolean;
  /** Unused time given back as account credit, granted in the commit. */
  credit?: { accountId: string; amountCents: number; currency: string } | null;
  /**
   * Unused time refunded: the sessions to refund from (the newest first), then (reserved with the
   * claim) their refunds. Plans stored before a refund could be split hold one of each
   * (`refundFrom`, `refund`).
   */
  refundsFrom?: RefundSource[];
  refunds?: RefundPlan[];
  refundFrom?: RefundSource | null;
  refund?: RefundPlan | null;
}

type RefundSource = { sessionId: string; amountCents: number };

const sourcesOf = (plan: CancelPlan): RefundSource[] =>
  plan.refundsFrom ?? (plan.refundFrom ? [plan.refundFrom] : []);
const refundsOf = (plan: CancelPlan): RefundPlan[] => plan.refunds ?? (plan.refund ? [plan.refund] : []);
/** The intent step of the i-th refund (the first keeps the name it had alone). */
const refundStep = (i: number) => (i === 0 ? 'refund' : `refund-${i + 1}`);

const noPayment = (amount: number) =>
  new AppError(
    'payment_not_refundable',
    `The successful payments of this subscription have less than ${amount} left to refund; cancel with refund \`credit\` instead`,
  );

/** What the cancellation gives back for the unused time, checked now: to whom and from which payment. */
async function giveBackPlan(
  deps: ServiceDeps,
  sub: SubscriptionRow,
  giveBack: GiveBack,
  figures: CancellationFigures,
): Promise<Pick<CancelPlan, 'credit' | 'refundsFrom'>> {
  if (giveBack === 'credit' && figures.creditCents > 0) {
    if (!sub.organizationId)
      throw validationFailed(
        'refund',
        'account',
        'refund `credit` needs a subscription of an account (organizationId)',
      );
    // Credit only where it can pay: the account linked to the billing account it came from.
    const holder = await creditHolder(deps, sub.tenantId, sub);
    if (!holder)
      throw validationFailed(
        'refund',
        'linked',
        'refund `credit` needs an account linked to the subscription’s billing account (externalId): ' +
          'no account could spend the credit; cancel with refund `refund` or `none`',
      );
    return { credit: { accountId: holder, amountCents: figures.creditCents, currency: sub.currency } };
  }
  if (giveBack !== 'refund' || figures.refundCents === 0) return {};
  if (!sub.billingAccountId || !sub.billingSubscriptionId) throw noPayment(figures.refundCents);
  const adapter = await adapterFor(deps, sub.tenantId);
  requireCapability(adapter, 'refunds');
  const invoices = unwrapBilling(await adapter.listInvoices(sub.billingAccountId), 'Billing account');
  const billed = invoices.filter((i) => i.subscriptionId === sub.billingSubscriptionId).map((i) => i.id);
  const from = await refundableSessions(deps.db, sub.tenantId, billed, figures.refundCents);
  if (!from) throw noPayment(figures.refundCents);
  return { refundsFrom: from };
}

export async function planCancel(
  deps: ServiceDeps,
  sub: SubscriptionRow,
  request: CancelRequest,
): Promise<CancelPlan> {
  const now = deps.clock.now();
  const claims = previewInstant(request.previewId, 'cancellation', sub, now);
  if (claims && request.timing !== undefined && request.timing !== claims.t)
    throw validationFailed('previewId', 'matches', 'previewId previews another timing');
  if (claims && request.refund !== undefined && request.refund !== (claims.r ?? 'none'))
    throw validationFailed('previewId', 'matches', 'previewId previews another refund option');
  const timing = claims?.t ?? request.timing ?? 'end_of_period';
  const giveBack = claims?.r ?? request.refund ?? 'none';
  const figures = quoteCancellation(sub, timing, claims ? new Date(claims.a) : now, giveBack);
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
    ...(givesBack(giveBack) && billedAheadUntil(sub) ? { givesBackBilledPeriod: true } : {}),
    ...(await giveBackPlan(deps, sub, giveBack, figures)),
  };
}

type CancelRequest = {
  timing?: ChangeTiming | undefined;
  refund?: GiveBack | undefined;
  previewId?: string | undefined;
};

/** With the claim: the refunds reserved on their sessions (a retry resuming the intent keeps its own). */
const reserveGiveBack =
  (deps: ServiceDeps, tenantId: string, subscriptionId: string) =>
  async (tx: Tx, plan: CancelPlan): Promise<CancelPlan> => {
    const sources = sourcesOf(plan);
    if (sources.length === 0) return plan;
    const refunds: RefundPlan[] = [];
    for (const source of sources)
      refunds.push(
        await reserveRefund(
          tx,
          tenantId,
          {
            ...source,
            reason: 'requested_by_customer',
            note: `cancellation of subscription ${subscriptionId}`,
          },
          deps.clock.now(),
        ),
      );
    return { ...plan, refunds };
  };

/** Nothing took effect: the refunds reserved with the claim go with it. */
const dropGiveBack = (tenantId: string, plan: CancelPlan) => async (tx: Tx) => {
  for (const refund of refundsOf(plan)) await dropRefund(tenantId, refund)(tx);
};

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
  for (const [i, refund] of refundsOf(plan).entries())
    unwrapBilling(await refundCall(intent, refundStep(i), adapter, refund), 'Payment');
}

async function commitCancel(
  lookups: ModuleLookups,
  u: UnitOfWork,
  plan: CancelPlan,
  claim: string | null,
): Promise<SubscriptionRow> {
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
  const after = await updateSubscription(u.tx, u.ctx.tenantId, plan.subscriptionId, {
    ...patch(before.version),
    ...(plan.givesBackBilledPeriod ? { billedThrough: null } : {}),
  });
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
    await emitEntitlementsChanged(u, cancellationChanges(before, after, ended));
  }
  if (plan.credit)
    await grant(u, {
      ...plan.credit,
      reason: `unused time of subscription ${plan.subscriptionId}`,
      sourceType: 'subscription',
      sourceId: plan.subscriptionId,
    });
  for (const refund of refundsOf(plan)) await commitRefund(lookups, u, refund);
  return after;
}

async function executeCancel(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<SubscriptionRow>,
  plan: CancelPlan,
  resumed?: Intent,
): Promise<SubscriptionRow> {
  if (plan.linked.length === 0)
    return runUnitOfWork(deps, ctx, key, (u) => commitCancel(deps.lookups, u, plan, null));
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
        steps: [
          ...plan.linked.map((s) => ({ step: `cancel-${s.id}`, kind: 'cancel_subscription' as const })),
          ...sourcesOf(plan).map((_, i) => ({ step: refundStep(i), kind: 'refund_payment' as const })),
        ],
      },
      reserveGiveBack(deps, ctx.tenantId, plan.subscriptionId),
    ));
  const stored = intent.plan;
  return underClaim(
    deps,
    ctx,
    key,
    intent,
    plan.subscriptionId,
    async (adapter) => {
      await cancelInBilling(intent, adapter, stored);
      return runUnitOfWork(deps, ctx, key, async (u) => {
        const row = await commitCancel(deps.lookups, u, stored, key.id);
        await intent.complete(u, resumed ? 'reconciler' : 'operation');
        return row;
      });
    },
    dropGiveBack(ctx.tenantId, stored),
  );
}

/**
 * Cancels now or at the end of what was billed (`billedThrough`: the period end, or the end of a
 * next period billed early unless that is given back), with its live add-ons; in the billing
 * system first.
 */
export async function cancelSubscription(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { subscriptionId: string } & CancelRequest,
  key: OperationKey<SubscriptionRow>,
): Promise<SubscriptionRow> {
  const sub = await getSubscription(deps.db, ctx.tenantId, input.subscriptionId);
  if (!sub) throw notFound('Subscription');
  return executeCancel(deps, ctx, key, await planCancel(deps, sub, input));
}

export const resumeCancel: ResumeIntent = async (deps, intent) => {
  const plan = intent.plan as CancelPlan;
  if (!(await tookEffect(deps, intent, plan.subscriptionId, dropGiveBack(intent.row.tenantId, plan))))
    return 'abandoned';
  await executeCancel(
    deps,
    contextOf(intent),
    { id: intent.row.operationId },
    intent.plan as CancelPlan,
    intent,
  );
  return 'completed';
};
