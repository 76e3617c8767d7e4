import { getTableName, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { readTogether, type ScalarRead, tenantRead } from '../../db/read-together.js';
import type { Offer, PriceRule } from './price-engine/index.js';
import type { ProductRow } from './products.js';
import { offers, priceRules, products } from './tables.js';

type Json = Record<string, unknown>;

const date = (v: unknown) => new Date(String(v));
const dateOrNull = (v: unknown) => (v == null ? null : new Date(String(v)));

const toProduct = (p: Json): ProductRow => ({
  tenantId: p.tenant_id as string,
  id: p.id as string,
  name: p.name as string,
  description: p.description as string | null,
  type: p.type as ProductRow['type'],
  family: p.family as string | null,
  rank: p.rank as number | null,
  billingInterval: p.billing_interval as ProductRow['billingInterval'],
  currency: p.currency as string,
  active: p.active as boolean,
  requiresShipping: p.requires_shipping as boolean,
  entitlements: p.entitlements as ProductRow['entitlements'],
  charges: p.charges as ProductRow['charges'],
  createdAt: date(p.created_at),
  updatedAt: date(p.updated_at),
});

const toRule = (r: Json): PriceRule => ({
  id: r.id as string,
  name: r.name as string,
  productId: r.product_id as string,
  chargeId: r.charge_id as string,
  segment: r.segment as string | null,
  locale: r.locale as string | null,
  partner: r.partner as string | null,
  chargeModel: r.charge_model as PriceRule['chargeModel'],
  tiers: r.tiers as PriceRule['tiers'],
  createdAt: date(r.created_at),
});

const toOffer = (o: Json): Offer => ({
  id: o.id as string,
  name: o.name as string,
  productId: o.product_id as string,
  discountType: o.discount_type as Offer['discountType'],
  percentOff: o.percent_off as number | null,
  amountOffCents: o.amount_off_cents as number | null,
  segment: o.segment as string | null,
  partner: o.partner as string | null,
  startsAt: date(o.starts_at),
  endsAt: dateOrNull(o.ends_at),
  active: o.active as boolean,
});

export interface PricingData {
  products: ProductRow[];
  rules: PriceRule[];
  offers: Offer[];
}

// The three parts of the pricing read, each a tenant's rows as JSON (text built once: it runs on
// every cart change, order and resolve).
const rowsOf = (table: Parameters<typeof tenantRead>[0], where: string) =>
  tenantRead(table, { select: `coalesce(json_agg("${getTableName(table)}"), '[]')`, where }, (v) => v);
const productsRead = rowsOf(products, 'id = any(?::uuid[])');
const rulesRead = rowsOf(priceRules, 'product_id = any(?::uuid[])');
const offersRead = rowsOf(offers, 'product_id = any(?::uuid[]) and active = true');

/**
 * What the pricing engine needs for some products (the products, their price rules, their
 * active offers) as ONE value: pricing sits on every cart, order and resolve request, and a
 * caller may read it together with other data (`readTogether`).
 */
export function pricingDataRead(tenantId: string, productIds: readonly string[]): ScalarRead<PricingData> {
  // The ids were validated as UUIDs by the route schemas; they travel as one array parameter.
  const ids = `{${productIds.join(',')}}`;
  return {
    query: sql`select json_build_object('products', (${productsRead(tenantId, ids).query}),
      'rules', (${rulesRead(tenantId, ids).query}), 'offers', (${offersRead(tenantId, ids).query}))`,
    decode: (value) => {
      const data = value as { products: Json[]; rules: Json[]; offers: Json[] };
      return {
        products: data.products.map(toProduct),
        rules: data.rules.map(toRule),
        offers: data.offers.map(toOffer),
      };
    },
  };
}

/** `pricingDataRead` on its own: one round trip. */
export async function pricingDataFor(
  db: Queryable,
  tenantId: string,
  productIds: readonly string[],
): Promise<PricingData> {
  if (productIds.length === 0) return { products: [], rules: [], offers: [] };
  const [data] = await readTogether(db, [pricingDataRead(tenantId, productIds)]);
  return data;
}
