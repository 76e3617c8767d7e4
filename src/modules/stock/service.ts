import { and, eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { Queryable } from '../../db/client.js';
import { type ScalarRead, tenantRead } from '../../db/read-together.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { pricingDataFor } from '../catalog/index.js';
import type { ProductStockSchema } from './schemas.js';
import { productStock } from './tables.js';

export type StockRow = typeof productStock.$inferSelect;
export type ProductStockApi = Static<typeof ProductStockSchema>;
export type Availability = ProductStockApi['availability'];

/** A product's availability: an override first, then the count of a tracked product. */
export function availabilityOf(
  row: Pick<StockRow, 'tracked' | 'onHand' | 'reserved' | 'availability'> | null,
): Availability {
  if (row?.availability) return row.availability;
  if (!row?.tracked) return 'in_stock';
  return row.onHand - row.reserved > 0 ? 'in_stock' : 'out_of_stock';
}

/**
 * `availabilityOf` in SQL, over the `product_stock` row aliased `alias` (all null when the product
 * has none): what catalog search filters and counts by. The two must say the same.
 */
export const availabilitySql = (alias: string) =>
  sql.raw(
    `case when ${alias}.availability is not null then ${alias}.availability ` +
      `when ${alias}.tracked is not true then 'in_stock' ` +
      `when ${alias}.on_hand - ${alias}.reserved > 0 then 'in_stock' else 'out_of_stock' end`,
  );

/** The stock as the API shows it; a product never set reads as untracked. */
export function presentStock(productId: string, row: StockRow | null): ProductStockApi {
  return {
    productId,
    tracked: row?.tracked ?? false,
    onHand: row?.onHand ?? 0,
    reserved: row?.reserved ?? 0,
    // Never below zero: under preorder or backorder, reserved may exceed what is on hand.
    available: Math.max(0, (row?.onHand ?? 0) - (row?.reserved ?? 0)),
    lowStockThreshold: row?.lowThreshold ?? null,
    availability: availabilityOf(row),
    updatedAt: row ? row.updatedAt.toISOString() : null,
  };
}

export async function readStock(
  q: Queryable,
  tenantId: string,
  productId: string,
  lock = false,
): Promise<StockRow | null> {
  const query = q
    .select()
    .from(productStock)
    .where(tenantWhere(productStock, tenantId, eq(productStock.productId, productId)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

/** A tracked product as an order is planned from: what is available, and if it sells beyond it. */
export interface TrackedStock {
  productId: string;
  available: number;
  beyond: boolean;
}

const trackedRead = tenantRead(
  productStock,
  {
    select: `coalesce(json_agg(json_build_object('productId', product_id, 'available', on_hand - reserved, 'beyond', availability is not null)), '[]')`,
    where: 'product_id = any(?::uuid[]) and tracked',
  },
  (v) => (v ?? []) as TrackedStock[],
);

/**
 * The products among `productIds` whose stock is tracked, as one value: an order reads it with its
 * pricing data (`readTogether`), so an order of untracked products costs no extra round trip.
 */
export function trackedProductsRead(
  tenantId: string,
  productIds: readonly string[],
): ScalarRead<TrackedStock[]> {
  return trackedRead(tenantId, `{${productIds.join(',')}}`);
}

/** A product's stock as a read of many products gives it (a product never set has none). */
export type StockLevel = Pick<
  StockRow,
  'productId' | 'tracked' | 'onHand' | 'reserved' | 'lowThreshold' | 'availability'
>;

const levelsRead = tenantRead(
  productStock,
  {
    select: `coalesce(json_agg(json_build_object('productId', product_id, 'tracked', tracked, 'onHand', on_hand, 'reserved', reserved, 'lowThreshold', low_threshold, 'availability', availability)), '[]')`,
    where: 'product_id = any(?::uuid[])',
  },
  (v) => ((typeof v === 'string' ? JSON.parse(v) : v) ?? []) as StockLevel[],
);

/**
 * The stock of those of `productIds` that have one set, as one value (a page of the product feed
 * reads it with the page's pricing data and content: one round trip).
 */
export function stockLevelsRead(tenantId: string, productIds: readonly string[]): ScalarRead<StockLevel[]> {
  return levelsRead(tenantId, `{${productIds.join(',')}}`);
}

/** A product's stock as shown; null when the tenant has no such product. */
export async function productStockOf(
  q: Queryable,
  tenantId: string,
  productId: string,
): Promise<ProductStockApi | null> {
  const [{ products }, row] = await Promise.all([
    pricingDataFor(q, tenantId, [productId]),
    readStock(q, tenantId, productId),
  ]);
  if (products.length === 0) return null;
  return presentStock(productId, row);
}
