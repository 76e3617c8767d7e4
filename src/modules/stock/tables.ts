import { sql } from 'drizzle-orm';
import { boolean, check, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

/** What a seller may say of a product regardless of its count: sold beyond what is on hand. */
export const STOCK_OVERRIDES = ['preorder', 'backorder'] as const;
export type StockOverride = (typeof STOCK_OVERRIDES)[number];

/**
 * A product's stock, when the seller set it (PUT /admin/products/{id}/stock). No row: the product
 * is not tracked and always `in_stock`. `reserved` counts units of placed orders not yet fulfilled
 * or released; available is `on_hand - reserved`, which a reservation never takes below zero
 * unless an override (preorder, backorder) sells beyond what is on hand.
 */
export const productStock = distributedTable(
  pgTable(
    'product_stock',
    {
      tenantId: uuid('tenant_id').notNull(),
      productId: uuid('product_id').notNull(),
      tracked: boolean('tracked').notNull(),
      onHand: integer('on_hand').notNull(),
      reserved: integer('reserved').notNull().default(0),
      /** `product.stock_low` is emitted when available falls to or below it; null: never. */
      lowThreshold: integer('low_threshold'),
      availability: text('availability').$type<StockOverride>(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.productId] }),
      check('product_stock_counts', sql`${t.onHand} >= 0 and ${t.reserved} >= 0`),
    ],
  ),
);

export const ORDER_STOCK_STATES = ['reserved', 'released', 'consumed', 'restocked'] as const;
export type OrderStockState = (typeof ORDER_STOCK_STATES)[number];

/**
 * The units an order holds of a tracked product: reserved when it is placed, then released (the
 * order cancelled), consumed (fulfilled: they left on hand) or restocked (refunds with restock put
 * every unit back; a partial restock counts its units in `restocked` and keeps the state).
 */
export const orderStock = distributedTable(
  pgTable(
    'order_stock',
    {
      tenantId: uuid('tenant_id').notNull(),
      orderId: uuid('order_id').notNull(),
      productId: uuid('product_id').notNull(),
      quantity: integer('quantity').notNull(),
      /** Units of `quantity` put back by refunds with restock; the rest moves with the order. */
      restocked: integer('restocked').notNull().default(0),
      state: text('state').notNull().$type<OrderStockState>(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.orderId, t.productId] }),
      check('order_stock_restocked', sql`${t.restocked} >= 0 and ${t.restocked} <= ${t.quantity}`),
    ],
  ),
);
