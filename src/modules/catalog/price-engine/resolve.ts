import { type Charge, type ChargeModel, chargeTotal, type PriceTier } from './charges.js';
import {
  type AppliedDiscount,
  activeOffers,
  applyDiscounts,
  type Offer,
  type PriceRule,
  type PricingContext,
  selectPriceRule,
} from './discounts.js';

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
