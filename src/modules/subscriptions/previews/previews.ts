import type { Static } from 'typebox';
import { notFound } from '../../../core/errors.js';
import type { ServiceDeps } from '../../../unit-of-work/index.js';
import { pricingDataFor } from '../../catalog/index.js';
import {
  addOnDigestInput,
  missingFor,
  planChangeDigestInput,
  presentResolvedPrice,
  quoteAddOn,
  quoteCancellation,
  quotePlanChange,
} from '../amounts/quotes.js';
import type { Entitlements } from '../entitlements/grants.js';
import { getSubscription, liveAddOns, resolveEntitlements } from '../service.js';
import type { AddOnPreviewBody, CancellationPreviewBody, PlanChangePreviewBody } from './preview-schemas.js';
import { encodePreviewId, figuresDigest, type PreviewClaims, previewExpiry } from './preview-token.js';

// The previews: what a change, an add-on purchase or a cancellation would do now, computed by the
// same code as the operations (quotes.ts), changing nothing, with a previewId that executes them.

const stamp = (claims: PreviewClaims) => ({
  previewId: encodePreviewId(claims),
  expiresAt: previewExpiry(claims).toISOString(),
});

const proration = (days: { remaining: number; total: number } | null) =>
  days ? { remainingDays: days.remaining, totalDays: days.total } : null;

/** Features of `after` that `before` lacks or grants less of (what a purchase adds). */
function gained(before: Entitlements, after: Entitlements): Entitlements {
  return Object.fromEntries(Object.entries(after).filter(([k, v]) => !(k in before) || before[k] !== v));
}

async function load(deps: ServiceDeps, tenantId: string, id: string) {
  const sub = await getSubscription(deps.db, tenantId, id);
  if (!sub) throw notFound('Subscription');
  return sub;
}

async function addOnEntitlements(
  deps: ServiceDeps,
  tenantId: string,
  productId: string,
): Promise<Entitlements> {
  const { products } = await pricingDataFor(deps.db, tenantId, [productId]);
  return products[0]?.entitlements ?? {};
}

export async function previewPlanChange(
  deps: ServiceDeps,
  tenantId: string,
  input: Static<typeof PlanChangePreviewBody>,
) {
  const { subscriptionId, targetProductId, timing } = input;
  const sub = await load(deps, tenantId, subscriptionId);
  const now = deps.clock.now();
  const q = await quotePlanChange(
    deps.db,
    sub,
    { kind: 'plan', targetProductId },
    timing,
    now,
    missingFor.preview(),
  );
  const f = q.figures;
  const data = {
    subscriptionId: sub.id,
    currentProduct: { id: sub.productId, name: q.currentName, priceCents: sub.priceCents },
    targetProduct: { id: q.target.id, name: q.target.name, priceCents: f.newPriceCents },
    direction: q.rule.direction,
    effectiveDate: f.effectiveDate.toISOString(),
    planDependencyAdjustments: q.links.map((l) => ({
      linkId: l.id,
      sourceChargeId: l.sourceChargeId,
      targetChargeId: l.targetChargeId,
      targetField: l.targetField,
      explanation: l.explanation,
    })),
    financialImpact: {
      currentPriceCents: f.currentPriceCents,
      newPriceCents: f.newPriceCents,
      creditCents: f.creditCents,
      chargeCents: f.chargeCents,
      netCents: f.netCents,
      currency: sub.currency,
    },
    businessRule: q.rule,
    policyEvaluation: {
      allowed: q.policy.allowed,
      evaluations: q.policy.evaluations.map(({ policyId, policyName, policyType, result }) => ({
        policyId,
        policyName,
        policyType,
        result,
      })),
    },
    resolvedPrice: presentResolvedPrice(q.resolution),
    quantity: q.quantity,
    proration: proration(f.proration),
    ...stamp({
      k: 'plan_change',
      s: sub.id,
      v: sub.version,
      a: now.getTime(),
      p: q.target.id,
      ...(timing ? { t: timing } : {}),
      d: figuresDigest(planChangeDigestInput(q)),
    }),
  };
  return data;
}

export async function previewAddOn(
  deps: ServiceDeps,
  tenantId: string,
  input: Static<typeof AddOnPreviewBody>,
) {
  const { subscriptionId, addOnProductId } = input;
  const quantity = input.quantity ?? 1;
  const parent = await load(deps, tenantId, subscriptionId);
  const now = deps.clock.now();
  const q = await quoteAddOn(
    deps.db,
    parent,
    addOnProductId,
    quantity,
    now,
    missingFor.preview(),
    'addOnProductId',
  );
  const before = (await resolveEntitlements(deps.db, tenantId, parent))?.entitlements ?? {};
  const after = (await resolveEntitlements(deps.db, tenantId, parent, [addOnProductId]))?.entitlements ?? {};
  const f = q.figures;
  const data = {
    subscriptionId: parent.id,
    addOnProduct: { id: q.addOn.id, name: q.addOn.name, priceCents: f.priceCents },
    quantity,
    billingInterval: parent.billingInterval,
    effectiveDate: f.effectiveDate.toISOString(),
    periodEnd: f.periodEnd.toISOString(),
    financialImpact: {
      priceCents: f.priceCents,
      chargeCents: f.chargeCents,
      creditCents: f.creditCents,
      netCents: f.netCents,
      currency: parent.currency,
    },
    proration: proration(f.proration),
    entitlements: { before, after, gained: gained(before, after) },
    ...stamp({
      k: 'add_on',
      s: parent.id,
      v: parent.version,
      a: now.getTime(),
      p: q.addOn.id,
      q: quantity,
      d: figuresDigest(addOnDigestInput(q)),
    }),
  };
  return data;
}

export async function previewCancellation(
  deps: ServiceDeps,
  tenantId: string,
  input: Static<typeof CancellationPreviewBody>,
) {
  const sub = await load(deps, tenantId, input.subscriptionId);
  const timing = input.timing ?? 'end_of_period';
  const giveBack = input.refund ?? 'none';
  const now = deps.clock.now();
  const f = quoteCancellation(sub, timing, now, giveBack);
  const addOns = sub.parentSubscriptionId ? [] : await liveAddOns(deps.db, tenantId, sub.id);
  const lost = sub.parentSubscriptionId
    ? await addOnEntitlements(deps, tenantId, sub.productId)
    : ((await resolveEntitlements(deps.db, tenantId, sub))?.entitlements ?? {});
  const data = {
    subscriptionId: sub.id,
    timing,
    effectiveDate: f.effectiveDate.toISOString(),
    financialImpact: {
      currentPriceCents: f.currentPriceCents,
      creditCents: f.creditCents,
      refundCents: f.refundCents,
      chargeCents: f.chargeCents,
      netCents: f.netCents,
      currency: sub.currency,
    },
    unusedDays: f.unusedDays,
    entitlementsLost: lost,
    addOnsCancelled: addOns.map((a) => a.id),
    ...stamp({
      k: 'cancellation',
      s: sub.id,
      v: sub.version,
      a: now.getTime(),
      t: timing,
      ...(giveBack !== 'none' ? { r: giveBack } : {}),
      d: figuresDigest(f),
    }),
  };
  return data;
}
