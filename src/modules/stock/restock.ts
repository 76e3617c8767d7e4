import { and, eq, sql } from 'drizzle-orm';
import { AppError, validationFailed } from '../../core/errors.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { UnitOfWork } from '../../unit-of-work/index.js';
import { presentStock } from './service.js';
import { orderStock, productStock } from './tables.js';

// A refund with restock puts an order's units back, all of them (`restock: true`) or named lines
// (`restockItems`). The units of a line can come back once each: `order_stock.restocked` counts
// them, under the line's row lock, so two refunds racing never put the same unit back twice.

/** Units of one product an order puts back. */
export interface RestockLine {
  productId: string;
  quantity: number;
}

/** What the caller asked: every unit not yet back, or these lines. */
export type RestockAsk = true | readonly RestockLine[];

type OrderStockRow = typeof orderStock.$inferSelect;

/** Units of the line that can still come back: reserved or consumed, less those already back. */
const restockable = (row: OrderStockRow) =>
  row.state === 'reserved' || row.state === 'consumed' ? row.quantity - row.restocked : 0;

function lockOrderStock(q: Queryable, tenantId: string, orderId: string) {
  return q
    .select()
    .from(orderStock)
    .where(tenantWhere(orderStock, tenantId, eq(orderStock.orderId, orderId)))
    .orderBy(orderStock.productId)
    .for('update');
}

function checkLine(
  line: RestockLine,
  index: number,
  row: OrderStockRow | undefined,
  left: number,
  orderId: string,
) {
  const field = `restockItems.${index}`;
  if (!row)
    throw validationFailed(
      `${field}.productId`,
      'tracked_line',
      `Product ${line.productId} is not a stock-tracked line of order ${orderId}`,
    );
  if (line.quantity > row.quantity)
    throw validationFailed(
      `${field}.quantity`,
      'max_sold',
      `Order ${orderId} sold ${row.quantity} of product ${line.productId}; ${line.quantity} asked`,
    );
  if (line.quantity > left) {
    const message = `Order ${orderId} has ${left} of ${row.quantity} units of product ${line.productId} left to restock (the rest are back already, pending in another refund, or released); ${line.quantity} asked`;
    throw new AppError('conflict', message, [{ field: `${field}.quantity`, rule: 'restockable', message }]);
  }
}

/**
 * The lines a refund will put back, checked under the order's stock row locks: each named product
 * a tracked line of the order, asked no more than it sold nor than it has left to restock, less
 * `pending` (units other refunds not yet settled will put back). 400 naming the field for a
 * product the order did not sell tracked or more than it sold; 409 `conflict` (rule
 * `restockable`) for more than is left. `true` takes whatever is left (possibly nothing).
 */
export async function planRestock(
  q: Queryable,
  tenantId: string,
  orderId: string,
  ask: RestockAsk,
  pending: ReadonlyMap<string, number> = new Map(),
): Promise<RestockLine[]> {
  const rows = await lockOrderStock(q, tenantId, orderId);
  const left = (row: OrderStockRow) => Math.max(0, restockable(row) - (pending.get(row.productId) ?? 0));
  if (ask === true)
    return rows.filter((r) => left(r) > 0).map((r) => ({ productId: r.productId, quantity: left(r) }));
  ask.forEach((line, index) => {
    if (ask.findIndex((l) => l.productId === line.productId) !== index)
      throw validationFailed(
        `restockItems.${index}.productId`,
        'unique',
        `Product ${line.productId} is named twice`,
      );
    const row = rows.find((r) => r.productId === line.productId);
    checkLine(line, index, row, row ? left(row) : 0, orderId);
  });
  return ask.map((l) => ({ productId: l.productId, quantity: l.quantity }));
}

/**
 * Puts `lines` of the order back in stock in the refund's unit of work: a reserved unit gives its
 * reservation back, a consumed one comes back on hand. Each line takes at most what it has left
 * (re-read under its lock), so a plan made earlier never restocks a unit twice. A line whose every
 * unit is back becomes `restocked`. Emits `product.restocked` per product; returns what moved.
 */
export async function restockOrder(
  u: UnitOfWork,
  orderId: string,
  lines: readonly RestockLine[],
): Promise<RestockLine[]> {
  const tenantId = u.ctx.tenantId;
  const rows = await lockOrderStock(u.tx, tenantId, orderId);
  const moved: RestockLine[] = [];
  for (const row of rows) {
    const asked = lines.find((l) => l.productId === row.productId)?.quantity ?? 0;
    const units = Math.min(asked, restockable(row));
    if (units <= 0) continue;
    const [stock] = await u.tx
      .update(productStock)
      .set(
        row.state === 'consumed'
          ? { onHand: sql`${productStock.onHand} + ${units}`, updatedAt: u.now }
          : { reserved: sql`greatest(${productStock.reserved} - ${units}, 0)`, updatedAt: u.now },
      )
      .where(tenantWhere(productStock, tenantId, eq(productStock.productId, row.productId)))
      .returning();
    const restocked = row.restocked + units;
    await u.tx
      .update(orderStock)
      .set({ restocked, state: restocked === row.quantity ? 'restocked' : row.state, updatedAt: u.now })
      .where(
        tenantWhere(
          orderStock,
          tenantId,
          and(eq(orderStock.orderId, orderId), eq(orderStock.productId, row.productId)),
        ),
      );
    if (stock)
      await u.emit('product.restocked', { ...presentStock(row.productId, stock), orderId, quantity: units });
    moved.push({ productId: row.productId, quantity: units });
  }
  return moved;
}
