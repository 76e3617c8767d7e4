import { and, eq, inArray, sql } from 'drizzle-orm';
import { AppError } from '../../core/errors.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { UnitOfWork, WriteSet } from '../../unit-of-work/index.js';
import { presentStock, type StockRow, type TrackedStock } from './service.js';
import { orderStock, productStock } from './tables.js';

// Stock moves inside the caller's unit of work: an order's units are reserved by one conditional
// UPDATE per product (no read-then-write, so two last-unit purchases cannot both pass), and given
// back or consumed with the order. The crossing events are emitted by the move that crosses.

/** A tracked line of an order: its index in the order's items, for the error's field. */
export interface StockLine {
  index: number;
  productId: string;
  quantity: number;
}

export const outOfStock = (line: StockLine, available: number) => {
  const message = `Product ${line.productId} has ${available} available; ${line.quantity} asked`;
  return new AppError('out_of_stock', message, [
    { field: `items.${line.index}.productId`, rule: 'in_stock', message },
  ]);
};

/** `product.stock_low` and `product.out_of_stock`, once, when available crosses them downwards. */
export async function emitCrossings(u: UnitOfWork, before: number, row: StockRow) {
  if (!row.tracked) return;
  const after = row.onHand - row.reserved;
  const data = presentStock(row.productId, row);
  if (row.lowThreshold !== null && before > row.lowThreshold && after <= row.lowThreshold)
    await u.emit('product.stock_low', data);
  if (before > 0 && after <= 0) await u.emit('product.out_of_stock', data);
}

/**
 * The tracked lines of an order being planned; 409 out_of_stock (naming the first line) when one
 * already cannot be had, before any billing call. The reservation in the unit of work decides.
 */
export function stockLinesOf(
  items: readonly { productId: string; quantity: number }[],
  tracked: readonly TrackedStock[],
): StockLine[] {
  const lines = items.flatMap((item, index) => {
    const stock = tracked.find((s) => s.productId === item.productId);
    return stock ? [{ line: { index, productId: item.productId, quantity: item.quantity }, stock }] : [];
  });
  for (const { line, stock } of lines) {
    const wanted = lines
      .filter((l) => l.line.productId === line.productId)
      .reduce((s, l) => s + l.line.quantity, 0);
    if (!stock.beyond && stock.available < wanted)
      throw outOfStock({ ...line, quantity: wanted }, Math.max(0, stock.available));
  }
  return lines.map((l) => l.line);
}

/** Quantities per product (a product on several lines is reserved once), in product order. */
function perProduct(lines: readonly StockLine[]): StockLine[] {
  const byId = new Map<string, StockLine>();
  for (const l of lines) {
    const seen = byId.get(l.productId);
    byId.set(l.productId, seen ? { ...seen, quantity: seen.quantity + l.quantity } : { ...l });
  }
  // One lock order for every order: two orders of the same products cannot deadlock.
  return [...byId.values()].sort((a, b) => (a.productId < b.productId ? -1 : 1));
}

/**
 * The order's tracked lines reserved by the order's own single statement, when no reservation
 * comes near a threshold: each product keeps more available than its low-stock threshold (and
 * than zero), so no event can follow and nothing needs reading first. When one does not (near or
 * out of stock, sold beyond what is on hand, no longer tracked), the statement fails with
 * `GuardRefused` having written nothing, and the caller reserves with `reserveStock` instead.
 */
export function reserveStockIfClear(u: WriteSet, orderId: string, lines: readonly StockLine[]) {
  const products = perProduct(lines);
  const tenantId = u.ctx.tenantId;
  const values = sql.join(
    products.map((l) => sql`(${l.productId}::uuid, ${l.quantity}::int)`),
    sql`, `,
  );
  u.write(
    sql`update product_stock ps set reserved = ps.reserved + v.quantity, updated_at = ${u.now}
      from (values ${values}) as v(product_id, quantity)
      where ps.tenant_id = ${tenantId} and ps.product_id = v.product_id and ps.tracked
        and ps.on_hand - ps.reserved - v.quantity > greatest(coalesce(ps.low_threshold, 0), 0)
      returning ps.product_id, v.quantity`,
    'stock_reserved',
  );
  u.write(sql`insert into order_stock (tenant_id, order_id, product_id, quantity, state, created_at, updated_at)
    select ${tenantId}::uuid, ${orderId}::uuid, product_id, quantity, 'reserved', ${u.now}, ${u.now}
    from stock_reserved`);
  u.require(sql`(select count(*) from stock_reserved) = ${products.length}`);
}

/**
 * Reserves the order's tracked lines: each product's `reserved` grows only where enough is
 * available (or an override sells beyond it). A line that cannot be had throws 409 out_of_stock
 * naming it, and the unit of work rolls back with everything it did.
 */
export async function reserveStock(u: UnitOfWork, orderId: string, lines: readonly StockLine[]) {
  const tenantId = u.ctx.tenantId;
  for (const line of perProduct(lines)) {
    const [row] = await u.tx
      .update(productStock)
      .set({ reserved: sql`${productStock.reserved} + ${line.quantity}`, updatedAt: u.now })
      .where(
        tenantWhere(
          productStock,
          tenantId,
          eq(productStock.productId, line.productId),
          eq(productStock.tracked, true),
          sql`(${productStock.availability} is not null or ${productStock.onHand} - ${productStock.reserved} >= ${line.quantity})`,
        ),
      )
      .returning();
    if (!row) {
      // Refused, or no longer tracked since the order was planned (then nothing to reserve).
      const [now] = await u.tx
        .select()
        .from(productStock)
        .where(tenantWhere(productStock, tenantId, eq(productStock.productId, line.productId)));
      if (!now?.tracked) continue;
      throw outOfStock(line, Math.max(0, now.onHand - now.reserved));
    }
    await emitCrossings(u, row.onHand - row.reserved + line.quantity, row);
    await u.tx.insert(orderStock).values({
      tenantId,
      orderId,
      productId: line.productId,
      quantity: line.quantity,
      state: 'reserved',
      createdAt: u.now,
      updatedAt: u.now,
    });
  }
}

/** The states an order's units can move to with the order; restocks go through `restock.ts`. */
export type OrderStockMove = 'released' | 'consumed';

/**
 * Moves the order's units still reserved to `to`: `released` (cancelled: the reservation is given
 * back) or `consumed` (fulfilled: on hand and reserved both drop). Units a refund already put back
 * (`restocked`) stay out. Units move once; returns how many moved.
 */
export async function moveOrderStock(u: UnitOfWork, orderId: string, to: OrderStockMove): Promise<number> {
  const tenantId = u.ctx.tenantId;
  const held = await u.tx
    .select()
    .from(orderStock)
    .where(
      tenantWhere(
        orderStock,
        tenantId,
        and(eq(orderStock.orderId, orderId), eq(orderStock.state, 'reserved')),
      ),
    )
    .orderBy(orderStock.productId)
    .for('update');
  for (const h of held) {
    const units = h.quantity - h.restocked;
    await u.tx
      .update(productStock)
      .set({
        reserved: sql`greatest(${productStock.reserved} - ${units}, 0)`,
        onHand: to === 'consumed' ? sql`greatest(${productStock.onHand} - ${units}, 0)` : productStock.onHand,
        updatedAt: u.now,
      })
      .where(tenantWhere(productStock, tenantId, eq(productStock.productId, h.productId)));
  }
  if (held.length > 0)
    await u.tx
      .update(orderStock)
      .set({ state: to, updatedAt: u.now })
      .where(
        tenantWhere(
          orderStock,
          tenantId,
          and(
            eq(orderStock.orderId, orderId),
            inArray(
              orderStock.productId,
              held.map((h) => h.productId),
            ),
          ),
        ),
      );
  return held.reduce((s, h) => s + h.quantity - h.restocked, 0);
}
