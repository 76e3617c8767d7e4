import { checkedTotal } from '../../core/money.js';
import type { Queryable } from '../../db/client.js';
import {
  type PriceResolution,
  type PricingContext,
  type PricingData,
  type ProductRow,
  pricingDataFor,
  resolvePrice,
} from '../catalog/index.js';

export interface PricedLine {
  product: ProductRow;
  resolution: PriceResolution;
}

/** Names the input that made line `index` cost too much (a 400 names it). */
export type QuantityField = (index: number) => string;
const itemQuantity: QuantityField = (i) => `items.${i}.quantity`;

/**
 * Prices lines of the tenant's products with one read of products, price rules and offers.
 * Lines whose product does not exist are left out of the result (callers report them). A line
 * costing more than MAX_TOTAL_CENTS is 400 naming `field(index)`.
 */
export async function priceLines(
  db: Queryable,
  tenantId: string,
  lines: readonly { productId: string; quantity: number }[],
  context: PricingContext,
  now: Date,
  field: QuantityField = itemQuantity,
): Promise<(PricedLine | undefined)[]> {
  const data = await pricingDataFor(db, tenantId, [...new Set(lines.map((l) => l.productId))]);
  return priceLinesWith(data, lines, context, now, field);
}

/** `priceLines` on data already read (`pricingDataRead`, read together with other data). */
export function priceLinesWith(
  { products, rules, offers }: PricingData,
  lines: readonly { productId: string; quantity: number }[],
  context: PricingContext,
  now: Date,
  field: QuantityField = itemQuantity,
): (PricedLine | undefined)[] {
  const byId = new Map(products.map((p) => [p.id, p]));
  return lines.map((line, i) => {
    const product = byId.get(line.productId);
    if (!product) return undefined;
    const resolution = resolvePrice({ product, quantity: line.quantity, context, rules, offers, now });
    checkedTotal(resolution.subtotalCents, field(i));
    return { product, resolution };
  });
}
