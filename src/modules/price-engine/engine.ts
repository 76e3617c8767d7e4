/**
 * The pricing engine: pure functions, integer cents, no I/O. Every amount the service shows
 * (resolve, carts, orders, subscriptions, previews) comes from here.
 *
 * Order of application (documented in docs/conformance.md, tested in test/pricing-*.test.ts):
 *   1. price rules: the most specific matching rule replaces a charge's model and tiers;
 *   2. charge math per charge and quantity (flat_fee, per_unit, tiered, volume);
 *   3. offers on the line: percent offers (largest first), then amount offers (largest first),
 *      each on the running amount, never below zero;
 *   4. (carts) one promotion on the cart subtotal, never below zero.
 * Percent discounts round half up to whole cents.
 */

export type ChargeModel = 'flat_fee' | 'per_unit' | 'tiered' | 'volume';

export interface PriceTier {
  /** Inclusive upper bound of the tier in units; null for the last, unbounded tier. */
  upTo: number | null;
  unitPriceCents: number;
  flatPriceCents: number;
}

export interface ModeledCharge {
  id: string;
  name: string;
  kind: 'modeled';
  chargeModel: ChargeModel;
  tiers: PriceTier[];
}

export interface PassthroughCharge {
  id: string;
  name: string;
  kind: 'passthrough';
}

export type Charge = ModeledCharge | PassthroughCharge;

export interface PricingContext {
  segment?: string | null;
  locale?: string | null;
  partner?: string | null;
}

export interface PriceRule {
  id: string;
  name: string;
  productId: string;
  chargeId: string;
  segment: string | null;
  locale: string | null;
  partner: string | null;
  /** Replaces the charge's model when set. */
  chargeModel: ChargeModel | null;
  tiers: PriceTier[];
  createdAt: Date;
}

export type DiscountType = 'percent' | 'amount';

export interface Offer {
  id: string;
  name: string;
  productId: string;
  discountType: DiscountType;
  percentOff: number | null;
  amountOffCents: number | null;
  segment: string | null;
  partner: string | null;
  startsAt: Date;
  endsAt: Date | null;
  active: boolean;
}

export interface Discount {
  id: string;
  name: string;
  discountType: DiscountType;
  percentOff: number | null;
  amountOffCents: number | null;
}

export interface AppliedDiscount {
  id: string;
  name: string;
  discountCents: number;
}

/** Half-up rounding of `amount * percent / 100` in integer arithmetic. */
export function percentOf(amountCents: number, percent: number): number {
  return Math.floor((amountCents * percent + 50) / 100);
}

/** Total of one charge for `quantity` units under `model`. */
export function chargeTotal(model: ChargeModel, tiers: readonly PriceTier[], quantity: number): number {
  const first = tiers[0];
  if (!first) return 0;
  switch (model) {
    case 'flat_fee':
      return first.flatPriceCents;
    case 'per_unit':
      return quantity * first.unitPriceCents + first.flatPriceCents;
    case 'volume': {
      // Every unit at the price of the tier the whole quantity falls in.
      const tier = tiers.find((t) => t.upTo === null || quantity <= t.upTo) ?? tiers[tiers.length - 1];
      return tier ? quantity * tier.unitPriceCents + tier.flatPriceCents : 0;
    }
    case 'tiered': {
      // Graduated: each tier prices the units that fall inside it, plus its flat fee once touched.
      let total = 0;
      let from = 0;
      for (const tier of tiers) {
        if (quantity <= from) break;
        const to = tier.upTo === null ? quantity : Math.min(quantity, tier.upTo);
        total += (to - from) * tier.unitPriceCents + tier.flatPriceCents;
        from = to;
      }
      return total;
    }
  }
}

const DIMENSIONS = ['partner', 'segment', 'locale'] as const;

/** How specific a rule is: how many dimensions it sets, then partner > segment > locale. */
function specificity(rule: PriceRule): [number, number] {
  let count = 0;
  let weight = 0;
  DIMENSIONS.forEach((dim, i) => {
    if (rule[dim] !== null) {
      count++;
      weight += 2 ** (DIMENSIONS.length - 1 - i);
    }
  });
  return [count, weight];
}

function ruleMatches(rule: PriceRule, context: PricingContext): boolean {
  return DIMENSIONS.every((dim) => rule[dim] === null || rule[dim] === (context[dim] ?? null));
}

/**
 * The price rule that applies to `chargeId` in `context`: among rules whose every set dimension
 * equals the context's, the one setting the most dimensions; ties go to partner, then segment,
 * then locale; then to the newest rule.
 */
export function selectPriceRule(
  rules: readonly PriceRule[],
  chargeId: string,
  context: PricingContext,
): PriceRule | undefined {
  let best: PriceRule | undefined;
  for (const rule of rules) {
    if (rule.chargeId !== chargeId || !ruleMatches(rule, context)) continue;
    if (!best || compareRules(rule, best) > 0) best = rule;
  }
  return best;
}

function compareRules(a: PriceRule, b: PriceRule): number {
  const ka = [...specificity(a), a.createdAt.getTime()];
  const kb = [...specificity(b), b.createdAt.getTime()];
  for (let i = 0; i < ka.length; i++) {
    const diff = (ka[i] as number) - (kb[i] as number);
    if (diff !== 0) return diff;
  }
  return a.id.localeCompare(b.id);
}

/** Offers that apply to `productId` in `context` at `now`. */
export function activeOffers(
  offers: readonly Offer[],
  productId: string,
  context: PricingContext,
  now: Date,
): Offer[] {
  const t = now.getTime();
  return offers.filter(
    (o) =>
      o.active &&
      o.productId === productId &&
      o.startsAt.getTime() <= t &&
      (o.endsAt === null || t < o.endsAt.getTime()) &&
      (o.segment === null || o.segment === (context.segment ?? null)) &&
      (o.partner === null || o.partner === (context.partner ?? null)),
  );
}

/**
 * Applies discounts to `amountCents`: percent ones first (largest first), then amounts (largest
 * first), each on the running amount, never below zero.
 */
export function applyDiscounts(
  amountCents: number,
  discounts: readonly Discount[],
): { totalCents: number; applied: AppliedDiscount[] } {
  const ordered = [...discounts].sort((a, b) => {
    if (a.discountType !== b.discountType) return a.discountType === 'percent' ? -1 : 1;
    const size = (d: Discount) =>
      d.discountType === 'percent' ? (d.percentOff ?? 0) : (d.amountOffCents ?? 0);
    return size(b) - size(a) || a.id.localeCompare(b.id);
  });
  let running = amountCents;
  const applied: AppliedDiscount[] = [];
  for (const d of ordered) {
    const wanted =
      d.discountType === 'percent' ? percentOf(running, d.percentOff ?? 0) : (d.amountOffCents ?? 0);
    const discountCents = Math.min(running, Math.max(0, wanted));
    running -= discountCents;
    applied.push({ id: d.id, name: d.name, discountCents });
  }
  return { totalCents: running, applied };
}

export interface PricedCharge {
  chargeId: string;
  name: string;
  kind: 'modeled' | 'passthrough';
  chargeModel: ChargeModel | null;
  /** The tiers that priced it (a price rule's, when one applied). */
  tiers: PriceTier[];
  /** List price for the quantity, before price rules; null for passthrough. */
  listCents: number | null;
  /** Price for the quantity after price rules; null for passthrough (priced by a live quote). */
  amountCents: number | null;
  priceRuleId: string | null;
}

export interface PriceResolution {
  productId: string;
  currency: string;
  quantity: number;
  charges: PricedCharge[];
  /** Modeled charges at list price for the quantity. */
  basePriceCents: number;
  /** Modeled charges after price rules. */
  subtotalCents: number;
  appliedPriceRules: { id: string; name: string; chargeId: string }[];
  appliedOffers: AppliedDiscount[];
  discountCents: number;
  totalCents: number;
  /** totalCents / quantity, rounded down: informative; totalCents is authoritative. */
  unitPriceCents: number;
  /** True when a passthrough charge needs the billing adapter's live quote. */
  requiresQuote: boolean;
}

export interface PricedProduct {
  id: string;
  currency: string;
  charges: readonly Charge[];
}

/** Resolves a product's price for a quantity and context: rules, charge math, offers. */
export function resolvePrice(input: {
  product: PricedProduct;
  quantity: number;
  context: PricingContext;
  rules: readonly PriceRule[];
  offers: readonly Offer[];
  now: Date;
}): PriceResolution {
  const { product, quantity, context } = input;
  const rules = input.rules.filter((r) => r.productId === product.id);
  const charges: PricedCharge[] = product.charges.map((charge) => {
    if (charge.kind === 'passthrough') {
      return {
        chargeId: charge.id,
        name: charge.name,
        kind: 'passthrough',
        chargeModel: null,
        tiers: [],
        listCents: null,
        amountCents: null,
        priceRuleId: null,
      };
    }
    const rule = selectPriceRule(rules, charge.id, context);
    const model = rule?.chargeModel ?? charge.chargeModel;
    const tiers = rule?.tiers ?? charge.tiers;
    return {
      chargeId: charge.id,
      name: charge.name,
      kind: 'modeled',
      chargeModel: model,
      tiers: [...tiers],
      listCents: chargeTotal(charge.chargeModel, charge.tiers, quantity),
      amountCents: chargeTotal(model, tiers, quantity),
      priceRuleId: rule?.id ?? null,
    };
  });
  const basePriceCents = charges.reduce((sum, c) => sum + (c.listCents ?? 0), 0);
  const subtotalCents = charges.reduce((sum, c) => sum + (c.amountCents ?? 0), 0);
  const offers = activeOffers(input.offers, product.id, context, input.now);
  const { totalCents, applied } = applyDiscounts(subtotalCents, offers);
  const ruleById = new Map(rules.map((r) => [r.id, r]));
  return {
    productId: product.id,
    currency: product.currency,
    quantity,
    charges,
    basePriceCents,
    subtotalCents,
    appliedPriceRules: charges.flatMap((c) => {
      const rule = c.priceRuleId ? ruleById.get(c.priceRuleId) : undefined;
      return rule ? [{ id: rule.id, name: rule.name, chargeId: c.chargeId }] : [];
    }),
    appliedOffers: applied,
    discountCents: subtotalCents - totalCents,
    totalCents,
    unitPriceCents: quantity > 0 ? Math.floor(totalCents / quantity) : 0,
    requiresQuote: charges.some((c) => c.kind === 'passthrough'),
  };
}

export interface Promotion extends Discount {
  code: string;
  currency: string | null;
  minSubtotalCents: number;
  startsAt: Date;
  endsAt: Date | null;
  usageLimit: number | null;
  timesRedeemed: number;
  active: boolean;
}

export type PromotionRejection =
  | 'inactive'
  | 'not_started'
  | 'expired'
  | 'exhausted'
  | 'minimum_not_met'
  | 'currency_mismatch';

/** Whether a promotion applies to a cart subtotal now, and what it takes off (never below zero). */
export function applyPromotion(
  promotion: Promotion,
  subtotalCents: number,
  currency: string,
  now: Date,
): { ok: true; discountCents: number; totalCents: number } | { ok: false; reason: PromotionRejection } {
  const t = now.getTime();
  if (!promotion.active) return { ok: false, reason: 'inactive' };
  if (t < promotion.startsAt.getTime()) return { ok: false, reason: 'not_started' };
  if (promotion.endsAt !== null && t >= promotion.endsAt.getTime()) return { ok: false, reason: 'expired' };
  if (promotion.usageLimit !== null && promotion.timesRedeemed >= promotion.usageLimit) {
    return { ok: false, reason: 'exhausted' };
  }
  if (promotion.discountType === 'amount' && promotion.currency !== null && promotion.currency !== currency) {
    return { ok: false, reason: 'currency_mismatch' };
  }
  if (subtotalCents < promotion.minSubtotalCents) return { ok: false, reason: 'minimum_not_met' };
  const { totalCents } = applyDiscounts(subtotalCents, [promotion]);
  return { ok: true, discountCents: subtotalCents - totalCents, totalCents };
}

export type PlanDirection = 'upgrade' | 'downgrade' | 'lateral';
export type ChangeTiming = 'immediate' | 'end_of_period';
export type ProrationType = 'prorated' | 'none' | 'full_credit';

export interface PlanSide {
  id: string;
  family: string | null;
  rank: number | null;
}

/** Upgrade or downgrade by rank within one family; equal ranks or different families are lateral. */
export function planDirection(current: PlanSide, target: PlanSide): PlanDirection {
  if (current.family === null || current.family !== target.family) return 'lateral';
  const a = current.rank ?? 0;
  const b = target.rank ?? 0;
  return b > a ? 'upgrade' : b < a ? 'downgrade' : 'lateral';
}

export interface PlanChangeRule {
  id: string;
  name: string;
  family: string | null;
  fromProductId: string | null;
  toProductId: string | null;
  direction: PlanDirection | null;
  changeTiming: ChangeTiming;
  prorationType: ProrationType;
}

export interface SelectedPlanChangeRule {
  ruleId: string;
  ruleName: string;
  direction: PlanDirection;
  changeTiming: ChangeTiming;
  prorationType: ProrationType;
}

const DEFAULT_RULES: Record<PlanDirection, Omit<SelectedPlanChangeRule, 'direction'>> = {
  upgrade: {
    ruleId: 'default-upgrade',
    ruleName: 'Default: upgrade now, prorated',
    changeTiming: 'immediate',
    prorationType: 'prorated',
  },
  downgrade: {
    ruleId: 'default-downgrade',
    ruleName: 'Default: downgrade at period end',
    changeTiming: 'end_of_period',
    prorationType: 'none',
  },
  lateral: {
    ruleId: 'default-lateral',
    ruleName: 'Default: lateral change now, prorated',
    changeTiming: 'immediate',
    prorationType: 'prorated',
  },
};

/**
 * The rule for changing `current` to `target`: a rule for exactly that product pair; else a rule
 * for the family and the computed direction; else a family rule with no direction; else the
 * default (upgrade immediate and prorated, downgrade at period end without proration, lateral
 * immediate and prorated).
 */
export function selectPlanChangeRule(
  rules: readonly PlanChangeRule[],
  current: PlanSide,
  target: PlanSide,
): SelectedPlanChangeRule {
  const direction = planDirection(current, target);
  const pair = rules.find((r) => r.fromProductId === current.id && r.toProductId === target.id);
  const family = current.family === target.family ? current.family : null;
  const familyRules =
    family === null
      ? []
      : rules.filter((r) => r.fromProductId === null && r.toProductId === null && r.family === family);
  const rule =
    pair ??
    familyRules.find((r) => r.direction === direction) ??
    familyRules.find((r) => r.direction === null);
  if (!rule) return { ...DEFAULT_RULES[direction], direction };
  return {
    ruleId: rule.id,
    ruleName: rule.name,
    direction,
    changeTiming: rule.changeTiming,
    prorationType: rule.prorationType,
  };
}
