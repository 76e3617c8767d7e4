import {
  type BillingAdapter,
  type BillingResult,
  type Invoice,
  presentInvoice,
  unwrapBilling,
} from '../../billing/index.js';
import { AppError } from '../../core/errors.js';
import type { ServiceDeps, UnitOfWork } from '../../unit-of-work/index.js';
import { insertSession, presentSession } from '../payments/index.js';
import { subscriptionEventData } from './entitlements/grants.js';
import { figuresDigest, readPreviewId } from './previews/preview-token.js';
import { baseOf, resolveEntitlements, type SubscriptionRow, subscriptionClaim } from './service.js';

// What the subscription operations share: the billing adapter, presenting billing results,
// event data, audit snapshots, preview checks and the payment session of a period billed.

export const noIntegration = () =>
  new AppError(
    'conflict',
    'The subscription is billing-linked but the tenant has no active billing integration',
  );

export async function adapterFor(deps: ServiceDeps, tenantId: string): Promise<BillingAdapter> {
  const adapter = await deps.billing.forTenant(deps.db, tenantId);
  if (!adapter) throw noIntegration();
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

/** The ISO instants of plans as Dates again. */
export const at = (iso: string) => new Date(iso);

/**
 * What every change of an existing, billing-linked subscription declares alike: rolled forward
 * once a call took effect, under the claim of the subscription at the version it was planned on.
 */
export const changesSubscription = {
  recovery: 'roll_forward',
  claims: {
    resource: subscriptionClaim,
    id: (plan: { subscriptionId: string }) => plan.subscriptionId,
    expected: (plan: { version: number }) => plan.version,
  },
  adapter: (deps: ServiceDeps, tenantId: string) => deps.billing.forTenant(deps.db, tenantId),
  noAdapter: noIntegration,
} as const;

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
