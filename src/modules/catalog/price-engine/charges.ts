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
