import { notFound } from '../../core/errors.js';
import { requireCtx } from '../../http/auth.js';
import type { Deps } from '../../http/deps.js';
import { action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import type { TypedApp } from '../../http/types.js';
import { pricingDataFor } from '../catalog/index.js';
import type { Entitlements } from './entitlements.js';
import { encodePreviewId, figuresDigest, type PreviewClaims, previewExpiry } from './preview-token.js';
import {
  addOnDigestInput,
  missingFor,
  planChangeDigestInput,
  presentResolvedPrice,
  quoteAddOn,
  quoteCancellation,
  quotePlanChange,
} from './quotes.js';
import {
  AddOnPreviewBody,
  AddOnPreviewSchema,
  CancellationPreviewBody,
  CancellationPreviewSchema,
  PlanChangePreviewBody,
  PlanChangePreviewSchema,
} from './schemas.js';
import { getSubscription, liveAddOns, resolveEntitlements } from './service.js';

const TAGS = ['Previews'];

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

export function registerPreviewRoutes(app: TypedApp, deps: Deps) {
  const load = async (tenantId: string, id: string) => {
    const sub = await getSubscription(deps.db, tenantId, id);
    if (!sub) throw notFound('Subscription');
    return sub;
  };

  app.post(
    '/api/v1/preview/plan-change',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'previewPlanChange',
        summary: 'Preview a plan change',
        description:
          'What POST /subscriptions/{id}/change-plan would do now, changing nothing: the products, `direction`, ' +
          '`effectiveDate`, plan links (`planDependencyAdjustments`), `financialImpact` (credit for unused days, ' +
          'charge for the rest of the period, net; integer cents, UTC day count, half-up), the plan-change ' +
          '`businessRule`, the `plan_change` `policyEvaluation` (a block shows `allowed: false` here; the change ' +
          'would be 403) and the target’s `resolvedPrice`. Pass `previewId` to change-plan within 15 minutes ' +
          '(`expiresAt`) to execute exactly these figures. 404 for a missing subscription or target product.',
        tags: TAGS,
        body: PlanChangePreviewBody,
        response: { 200: Envelope(PlanChangePreviewSchema, 'The previewed change.'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const { subscriptionId, targetProductId, timing } = request.body;
      const sub = await load(ctx.tenantId, subscriptionId);
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
      return envelope(ctx, data, [
        action('changePlan', 'POST', `/subscriptions/${sub.id}/change-plan`, 'commerce'),
        action('subscription', 'GET', `/subscriptions/${sub.id}`, 'read'),
      ]);
    },
  );

  app.post(
    '/api/v1/preview/add-on',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'previewAddOn',
        summary: 'Preview buying an add-on',
        description:
          'What buying `addOnProductId` for the subscription would do now, changing nothing: the add-on’s price per ' +
          'period (priced with the subscription’s customer context), the charge now (the rest of the parent’s period, ' +
          'prorated by UTC days, half-up cents; the add-on then renews with the parent), and the entitlements before, ' +
          'after and gained (add-ons merge into the subscription’s entitlements: limits add up, null is unlimited). ' +
          'Buy with POST /subscriptions `{ productId, parentSubscriptionId, previewId }` within 15 minutes for exactly ' +
          'these figures. 404 for a missing subscription or add-on product; 400 when it is not an add-on.',
        tags: TAGS,
        body: AddOnPreviewBody,
        response: { 200: Envelope(AddOnPreviewSchema, 'The previewed purchase.'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const { subscriptionId, addOnProductId } = request.body;
      const quantity = request.body.quantity ?? 1;
      const parent = await load(ctx.tenantId, subscriptionId);
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
      const before = (await resolveEntitlements(deps.db, ctx.tenantId, parent))?.entitlements ?? {};
      const after =
        (await resolveEntitlements(deps.db, ctx.tenantId, parent, [addOnProductId]))?.entitlements ?? {};
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
      return envelope(ctx, data, [action('createSubscription', 'POST', '/subscriptions', 'commerce')]);
    },
  );

  app.post(
    '/api/v1/preview/cancellation',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'previewCancellation',
        summary: 'Preview a cancellation',
        description:
          'What POST /subscriptions/{id}/cancel would do now, changing nothing: the effective date (now for ' +
          '`immediate`, `currentPeriodEnd` for `end_of_period`, the default), the financial impact (no refund or ' +
          'credit for unused time; `unusedDays` says what an immediate cancellation gives up), the entitlements ' +
          'lost and the add-ons cancelled with it. Pass `previewId` to cancel within 15 minutes for exactly this ' +
          'effective date. 404 for a missing subscription; 409 when already cancelled.',
        tags: TAGS,
        body: CancellationPreviewBody,
        response: {
          200: Envelope(CancellationPreviewSchema, 'The previewed cancellation.'),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const sub = await load(ctx.tenantId, request.body.subscriptionId);
      const timing = request.body.timing ?? 'end_of_period';
      const now = deps.clock.now();
      const f = quoteCancellation(sub, timing, now);
      const addOns = sub.parentSubscriptionId ? [] : await liveAddOns(deps.db, ctx.tenantId, sub.id);
      const lost = sub.parentSubscriptionId
        ? await addOnEntitlements(deps, ctx.tenantId, sub.productId)
        : ((await resolveEntitlements(deps.db, ctx.tenantId, sub))?.entitlements ?? {});
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
          d: figuresDigest(f),
        }),
      };
      return envelope(ctx, data, [action('cancel', 'POST', `/subscriptions/${sub.id}/cancel`, 'commerce')]);
    },
  );
}

async function addOnEntitlements(deps: Deps, tenantId: string, productId: string): Promise<Entitlements> {
  const { products } = await pricingDataFor(deps.db, tenantId, [productId]);
  return products[0]?.entitlements ?? {};
}
