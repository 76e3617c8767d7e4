import type { Static } from 'typebox';
import { toDecimal } from '../../../core/money.js';
import type { ResolvedPriceSchema } from '../schemas.js';
import type { PricedLine } from '../service.js';

export function present(
  { product, resolution: r }: PricedLine,
  context: Static<typeof ResolvedPriceSchema>['context'],
) {
  const tiers = r.charges.map((c) => ({
    id: c.chargeId,
    name: c.name,
    price: c.amountCents === null ? null : toDecimal(c.amountCents, r.currency),
    priceCents: c.amountCents,
    currency: r.currency,
    chargeModel: c.chargeModel,
  }));
  const { productId, currency, quantity, charges, appliedPriceRules, appliedOffers, requiresQuote } = r;
  return {
    productId,
    productName: product.name,
    currency,
    quantity,
    context,
    basePriceCents: r.basePriceCents,
    subtotalCents: r.subtotalCents,
    discountCents: r.discountCents,
    totalCents: r.totalCents,
    unitPriceCents: r.unitPriceCents,
    pricingTierCount: tiers.length,
    tiers,
    charges,
    appliedPriceRules,
    appliedOffers,
    requiresQuote,
  };
}
