import { checkedTotal } from '../../../core/money.js';
/**
 * Reads everything a change depends on and computes its figures. Previews and operations both
 * call these (reads only: before any transaction), so they cannot disagree.
 */

import { AppError, validationFailed } from '../../../core/errors.js';
import { toDecimal } from '../../../core/money.js';
import type { Queryable } from '../../../db/client.js';
import {
  type ChangeTiming,
  type PriceResolution,
  type ProductRow,
  planChangeRulesOf,
  planLinksBetween,
  pricingDataFor,
  resolvePrice,
  type SelectedPlanChangeRule,
  selectPlanChangeRule,
} from '../../catalog/index.js';
import { evaluatePolicies, type PlanChangePolicyInput, type PolicyEvaluation } from '../../policies/index.js';
import type { SubscriptionRow } from '../service.js';
import type { BillingInterval } from '../tables.js';
import {
  type AddOnFigures,
  addOnFigures,
  billedAheadUntil,
  type CancellationFigures,
  cancellationFigures,
  type GiveBack,
  givesBack,
  type PlanChangeFigures,
  planChangeFigures,
} from './figures.js';

type NotFound = (what: 'product' | 'add-on product') => AppError;

/** How a missing product is answered: previews 404 (SPEC), operations 400 naming the field. */
export const missingFor = {
  preview: (): NotFound => (what) =>
    new AppError('not_found', `${what === 'product' ? 'Target product' : 'Add-on product'} not found`),
  operation:
    (field: string): NotFound =>
    () =>
      validationFailed(field, 'exists', `${field} is not a product of this tenant`),
};

/** A product a subscription can be on: active, subscription-priced, same currency, no live quote. */
function checkPlanProduct(
  product: ProductRow,
  field: string,
  type: 'subscription' | 'add_on',
  currency: string,
) {
  if (!product.active) throw validationFailed(field, 'active', `${field} is not an active product`);
  if (product.type !== type)
    throw validationFailed(
      field,
      'type',
      `${field} is a ${product.type} product, not ${type === 'add_on' ? 'an add_on' : 'a subscription'}`,
    );
  if (product.currency !== currency)
    throw validationFailed(
      field,
      'currency',
      `${field} is priced in ${product.currency}, the subscription in ${currency}`,
    );
  if (product.charges.some((c) => c.kind === 'passthrough'))
    throw validationFailed(
      field,
      'modeled',
      `${field} has passthrough charges; subscriptions need modeled prices`,
    );
}

function assertChangeable(sub: SubscriptionRow) {
  if (sub.status === 'cancelled') throw new AppError('conflict', 'The subscription is cancelled');
  if (sub.status === 'pending_cancellation')
    throw new AppError('conflict', 'The subscription is cancelled at the period end; it cannot change');
}

export function presentResolvedPrice(r: PriceResolution) {
  const tiers = r.charges.map((c) => ({
    id: c.chargeId,
    name: c.name,
    price: c.amountCents === null ? null : toDecimal(c.amountCents, r.currency),
    currency: r.currency,
    chargeModel: c.chargeModel,
  }));
  return { basePriceCents: r.basePriceCents, pricingTierCount: tiers.length, tiers };
}

export interface PlanChangeQuote {
  kind: 'plan' | 'quantity';
  subscription: SubscriptionRow;
  currentName: string;
  target: ProductRow;
  quantity: number;
  targetInterval: BillingInterval;
  resolution: PriceResolution;
  rule: SelectedPlanChangeRule;
  figures: PlanChangeFigures;
  links: Awaited<ReturnType<typeof planLinksBetween>>;
  policy: PolicyEvaluation;
}

/**
 * A plan change (`kind: plan`, to `targetProductId`) or a quantity change (`kind: quantity`)
 * of `sub` at `at`, with the rule, policies and figures. Quantity changes choose their rule by
 * the quantity's direction (more is an upgrade) among the product family's rules.
 */
export async function quotePlanChange(
  db: Queryable,
  sub: SubscriptionRow,
  change: { kind: 'plan'; targetProductId: string } | { kind: 'quantity'; quantity: number },
  timing: ChangeTiming | undefined,
  at: Date,
  missing: NotFound,
): Promise<PlanChangeQuote> {
  assertChangeable(sub);
  const targetId = change.kind === 'plan' ? change.targetProductId : sub.productId;
  const field = change.kind === 'plan' ? 'targetProductId' : 'quantity';
  if (change.kind === 'plan' && sub.parentSubscriptionId)
    throw validationFailed(
      'targetProductId',
      'add_on',
      'an add-on changes quantity only; cancel it and buy another',
    );
  if (change.kind === 'plan' && targetId === sub.productId)
    throw validationFailed(
      'targetProductId',
      'distinct',
      'targetProductId is the current plan; use change-quantity',
    );
  const data = await pricingDataFor(db, sub.tenantId, [sub.productId, targetId]);
  const current = data.products.find((p) => p.id === sub.productId);
  const target = data.products.find((p) => p.id === targetId);
  if (!target) {
    if (change.kind === 'quantity')
      throw new AppError('conflict', 'The subscription’s product no longer exists');
    throw missing('product');
  }
  checkPlanProduct(target, field, sub.parentSubscriptionId ? 'add_on' : 'subscription', sub.currency);
  const quantity = change.kind === 'quantity' ? change.quantity : sub.quantity;
  if (change.kind === 'quantity' && quantity === sub.quantity)
    throw validationFailed('quantity', 'distinct', `quantity is already ${quantity}`);
  const targetInterval = target.billingInterval ?? sub.billingInterval;
  if (sub.parentSubscriptionId && targetInterval !== sub.billingInterval)
    throw validationFailed(field, 'billingInterval', 'an add-on bills with its parent’s interval');
  const resolution = resolvePrice({
    product: target,
    quantity,
    context: sub.customerContext,
    rules: data.rules,
    offers: data.offers,
    now: at,
  });
  checkedTotal(resolution.subtotalCents, change.kind === 'quantity' ? 'quantity' : field);
  const rules = await planChangeRulesOf(db, sub.tenantId);
  const family = current?.family ?? null;
  const rule =
    change.kind === 'plan'
      ? selectPlanChangeRule(
          rules,
          { id: sub.productId, family, rank: current?.rank ?? null },
          { id: target.id, family: target.family, rank: target.rank },
        )
      : // Same product: direction by quantity; the family's rules apply, else the defaults.
        selectPlanChangeRule(
          rules,
          { id: sub.productId, family: family ?? '\u0000quantity', rank: sub.quantity },
          { id: `${sub.productId}#quantity`, family: family ?? '\u0000quantity', rank: quantity },
        );
  const figures = planChangeFigures({
    state: sub,
    newPriceCents: resolution.totalCents,
    targetInterval,
    direction: rule.direction,
    changeTiming: timing ?? rule.changeTiming,
    prorationType: rule.prorationType,
    at,
  });
  const links =
    change.kind === 'plan' ? await planLinksBetween(db, sub.tenantId, sub.productId, target.id) : [];
  const side = (p: ProductRow | undefined, priceCents: number, id: string, name: string) => ({
    id,
    name,
    family: p?.family ?? null,
    rank: p?.rank ?? null,
    priceCents,
  });
  const policyInput: PlanChangePolicyInput & { operation: string; targetQuantity: number } = {
    subscription: { id: sub.id, productId: sub.productId, quantity: sub.quantity, status: sub.status },
    currentProduct: side(current, sub.priceCents, sub.productId, current?.name ?? sub.productName),
    targetProduct: side(target, resolution.totalCents, target.id, target.name),
    direction: rule.direction,
    operation: change.kind === 'plan' ? 'change_plan' : 'change_quantity',
    targetQuantity: quantity,
  };
  const policy = await evaluatePolicies(db, sub.tenantId, 'plan_change', policyInput);
  return {
    kind: change.kind,
    subscription: sub,
    currentName: current?.name ?? sub.productName,
    target,
    quantity,
    targetInterval,
    resolution,
    rule,
    figures,
    links,
    policy,
  };
}

/** The figures a preview id's digest covers (everything the change will execute). */
export const planChangeDigestInput = (q: PlanChangeQuote) => ({
  target: q.target.id,
  quantity: q.quantity,
  interval: q.targetInterval,
  ...q.figures,
  rule: q.rule.ruleId,
});

export function quoteCancellation(
  sub: SubscriptionRow,
  timing: ChangeTiming,
  at: Date,
  giveBack: GiveBack = 'none',
): CancellationFigures {
  if (sub.status === 'cancelled') throw new AppError('conflict', 'The subscription is already cancelled');
  if (sub.status === 'pending_cancellation' && timing === 'end_of_period')
    throw new AppError('conflict', 'The subscription is already cancelled at the period end');
  // At the period end only a next period billed early is left unused, if it is given back.
  if (givesBack(giveBack) && timing !== 'immediate' && !billedAheadUntil(sub))
    throw validationFailed(
      'refund',
      'timing',
      'refund `credit` or `refund` with end_of_period gives back a next period billed early (renew); ' +
        'this subscription has none, and it uses its current period to the end: use timing `immediate`',
    );
  return cancellationFigures(sub, timing, at, giveBack);
}

export interface AddOnQuote {
  parent: SubscriptionRow;
  addOn: ProductRow;
  quantity: number;
  resolution: PriceResolution;
  figures: AddOnFigures;
}

/** Buying `addOnProductId` for `parent` at `at`: priced with the parent's customer context. */
export async function quoteAddOn(
  db: Queryable,
  parent: SubscriptionRow,
  addOnProductId: string,
  quantity: number,
  at: Date,
  missing: NotFound,
  field: string,
): Promise<AddOnQuote> {
  if (parent.parentSubscriptionId)
    throw validationFailed('parentSubscriptionId', 'base', 'parentSubscriptionId is itself an add-on');
  assertChangeable(parent);
  const data = await pricingDataFor(db, parent.tenantId, [addOnProductId]);
  const addOn = data.products[0];
  if (!addOn) throw missing('add-on product');
  checkPlanProduct(addOn, field, 'add_on', parent.currency);
  if (addOn.billingInterval && addOn.billingInterval !== parent.billingInterval)
    throw validationFailed(
      field,
      'billingInterval',
      `${field} bills per ${addOn.billingInterval}, the parent per ${parent.billingInterval}`,
    );
  const resolution = resolvePrice({
    product: addOn,
    quantity,
    context: parent.customerContext,
    rules: data.rules,
    offers: data.offers,
    now: at,
  });
  checkedTotal(resolution.subtotalCents, 'quantity');
  return { parent, addOn, quantity, resolution, figures: addOnFigures(parent, resolution.totalCents, at) };
}

export const addOnDigestInput = (q: AddOnQuote) => ({
  addOn: q.addOn.id,
  quantity: q.quantity,
  ...q.figures,
});
