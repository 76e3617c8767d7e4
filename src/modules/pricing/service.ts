import type { Queryable } from '../../db/client.js';
import { type PricingData, type ProductRow, pricingDataFor } from '../catalog/index.js';
import { type PriceResolution, type PricingContext, resolvePrice } from '../price-engine/index.js';

export interface PricedLine {
  product: ProductRow;
  resolution: PriceResolution;
}

/**
 * Prices lines of the tenant's products with one read of products, price rules and offers.
 * Lines whose product does not exist are left out of the result (callers report them).
 */
export async function priceLines(
  db: Queryable,
  tenantId: string,
  lines: readonly { productId: string; quantity: number }[],
  context: PricingContext,
  now: Date,
): Promise<(PricedLine | undefined)[]> {
  const data = await pricingDataFor(db, tenantId, [...new Set(lines.map((l) => l.productId))]);
  return priceLinesWith(data, lines, context, now);
}

/** `priceLines` on data already read (`pricingDataRead`, read together with other data). */
export function priceLinesWith(
  { products, rules, offers }: PricingData,
  lines: readonly { productId: string; quantity: number }[],
  context: PricingContext,
  now: Date,
): (PricedLine | undefined)[] {
  const byId = new Map(products.map((p) => [p.id, p]));
  return lines.map((line) => {
    const product = byId.get(line.productId);
    if (!product) return undefined;
    return {
      product,
      resolution: resolvePrice({ product, quantity: line.quantity, context, rules, offers, now }),
    };
  });
}
