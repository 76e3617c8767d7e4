import {
  type BillingAdapter,
  type BillingResult,
  type Invoice,
  presentInvoice,
  unwrapBilling,
} from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import type { Tx } from '../../db/client.js';
import {
  abandonIntent,
  anyCallTookEffect,
  beginIntent,
  type Intent,
  type IntentSpec,
  type OperationKey,
  pendingPlanOf,
  type ServiceDeps,
  type UnitOfWork,
} from '../../unit-of-work/index.js';
import { insertSession, presentSession } from '../payments/index.js';
import { subscriptionEventData } from './entitlements/grants.js';
import { figuresDigest, readPreviewId } from './previews/preview-token.js';
import {
  baseOf,
  claimOperation,
  releaseOperation,
  resolveEntitlements,
  type SubscriptionRow,
} from './service.js';

// What the subscription operations share: the billing adapter, presenting billing results,
// event data, audit snapshots, preview checks and the payment session of a period billed.

export async function adapterFor(deps: ServiceDeps, tenantId: string): Promise<BillingAdapter> {
  const adapter = await deps.billing.forTenant(deps.db, tenantId);
  if (!adapter)
    throw new AppError(
      'conflict',
      'The subscription is billing-linked but the tenant has no active billing integration',
    );
  return adapter;
}

/** The value of a billing result; an unknown billing subscription is a 409 (the two sides disagree). */
export function billingValue<T>(result: BillingResult<T>): T {
  if (!result.ok && result.failure.kind === 'not_found')
    throw new AppError(
      'conflict',
      `The billing system does not know this subscription: ${result.failure.message}`,
    );
  return unwrapBilling(result, 'Billing subscription');
}

/** The `data` of a subscription event for `row`, as it is in `u.tx` now (SPEC section 6). */
export async function eventData(u: UnitOfWork, row: SubscriptionRow, userId: string | null) {
  const base = await baseOf(u.tx, u.ctx.tenantId, row);
  const resolved = await resolveEntitlements(u.tx, u.ctx.tenantId, base);
  // A cancelled subscription grants nothing: resolved, and empty.
  const entitlements = resolved && base.status === 'cancelled' ? { ...resolved, entitlements: {} } : resolved;
  return subscriptionEventData(row, entitlements, userId);
}

export async function emitInvoice(u: UnitOfWork, invoice: Invoice | null, subscriptionId: string) {
  if (invoice)
    await u.emit('invoice.created', {
      resourceType: 'invoice',
      resourceId: invoice.id,
      invoice: presentInvoice(invoice),
      subscriptionId,
    });
}

export const snapshot = (r: SubscriptionRow) => ({
  productId: r.productId,
  quantity: r.quantity,
  priceCents: r.priceCents,
  billingInterval: r.billingInterval,
  status: r.status,
  currentPeriodStart: r.currentPeriodStart.toISOString(),
  currentPeriodEnd: r.currentPeriodEnd.toISOString(),
  pendingChange: r.pendingChange,
});

/** The preview id's claims when it is valid for `sub` at its version (else 400/409). */
export function previewInstant(
  raw: string | undefined,
  kind: 'plan_change' | 'cancellation' | 'add_on',
  sub: SubscriptionRow,
  now: Date,
) {
  if (!raw) return null;
  const claims = readPreviewId(raw, kind, sub.id, now);
  if (claims.v !== sub.version)
    throw new AppError('conflict', 'The subscription changed since the preview; preview again');
  return claims;
}

export function assertSameFigures(claims: { d: string } | null, figures: unknown) {
  if (claims && claims.d !== figuresDigest(figures))
    throw new AppError('conflict', 'Prices or rules changed since the preview; preview again');
}

/** Who acts when the reconciler finishes an operation: the key that asked for it, as then. */
export const contextOf = (intent: Intent): OperationContext => intent.context;

/**
 * Gives the subscription's claim back (the operation's intent closed without taking effect), and
 * whatever else the operation reserved with it (`also`: a cancellation's refund).
 */
export const releaseClaim =
  (tenantId: string, subscriptionId: string, operationId: string, also?: (tx: Tx) => Promise<void>) =>
  async (tx: Tx): Promise<void> => {
    await releaseOperation(tx, tenantId, subscriptionId, operationId);
    await also?.(tx);
  };

/**
 * The reconciler, before finishing a change left pending: whether one of its calls took effect.
 * None did: its intent is closed `abandoned` and the subscription's claim given back.
 */
export async function tookEffect(
  deps: ServiceDeps,
  intent: Intent,
  subscriptionId: string,
  also?: (tx: Tx) => Promise<void>,
): Promise<boolean> {
  const adapter = await adapterFor(deps, intent.row.tenantId);
  const release = releaseClaim(intent.row.tenantId, subscriptionId, intent.row.operationId, also);
  return anyCallTookEffect(deps, intent, adapter, release);
}

/** The ISO instants of plans as Dates again. */
export const at = (iso: string) => new Date(iso);

/**
 * Claims the subscription for `key`'s operation and commits its intent, in one transaction: at the
 * version the operation was planned on, and only when no other operation holds it (409).
 */
export async function claimAndBegin<P>(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: Pick<OperationKey, 'id'>,
  sub: { id: string; version: number },
  spec: Omit<IntentSpec<P>, 'subject' | 'recovery'>,
  reserve?: (tx: Tx, plan: P) => Promise<P>,
): Promise<Intent<P>> {
  return deps.db.transaction(async (tx) => {
    if (!(await claimOperation(tx, ctx.tenantId, sub.id, sub.version, key.id, deps.clock.now())))
      throw new AppError(
        'conflict',
        'The subscription changed meanwhile, or another change of it is in progress; read it again and retry',
      );
    // What the operation reserves with its claim (a refund), unless a retry resumes an earlier plan.
    const resuming = reserve && (await pendingPlanOf(tx, ctx.tenantId, key.id));
    const plan = reserve && !resuming ? await reserve(tx, spec.plan) : spec.plan;
    return beginIntent(tx, deps, ctx, key, {
      ...spec,
      plan,
      recovery: 'roll_forward',
      subject: { type: 'subscription', id: sub.id },
    });
  });
}

/**
 * Runs the billing part and the commit of a change of an existing subscription under its intent
 * (claimed by `claimAndBegin`, or held by the reconciler resuming it). A failure leaves the intent
 * pending when a call may have taken effect (a retry or the reconciler finishes the change), or
 * closes it and gives the claim back when none did.
 */
export async function underClaim<P, T>(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: Pick<OperationKey, 'id'>,
  intent: Intent<P>,
  subscriptionId: string,
  run: (adapter: BillingAdapter) => Promise<T>,
  also?: (tx: Tx) => Promise<void>,
): Promise<T> {
  const adapter = await adapterFor(deps, ctx.tenantId);
  try {
    return await run(adapter);
  } catch (err) {
    await abandonIntent(deps, intent, adapter, err, releaseClaim(ctx.tenantId, subscriptionId, key.id, also));
    throw err;
  }
}

/** The payment session for a period billed now: the invoice's balance, or the price without one. */
export async function openSession(
  u: UnitOfWork,
  sub: SubscriptionRow,
  invoice: Invoice | null,
  priceCents: number,
) {
  const amountCents = invoice ? invoice.balanceCents : priceCents;
  const accountId = sub.billingAccountId ?? sub.organizationId ?? sub.contactId;
  if (amountCents <= 0 || !accountId) return null;
  const session = presentSession(
    await insertSession(
      u.tx,
      u.ctx.tenantId,
      {
        accountId,
        amountCents,
        currency: sub.currency,
        invoiceId: invoice?.id ?? null,
        paymentPageSlug: null,
      },
      u.now,
    ),
  );
  return session;
}
