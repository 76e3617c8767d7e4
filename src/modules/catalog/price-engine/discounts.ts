import { type ChargeModel, type PriceTier, percentOf } from './charges.js';

// Price rules, offers and promotion codes: what changes a charge's model, or takes money off a
// line or a cart.

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
