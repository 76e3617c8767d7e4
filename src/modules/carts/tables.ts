import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

export interface CustomerContext {
  segment?: string | null;
  locale?: string | null;
  partner?: string | null;
}

export const carts = distributedTable(
  pgTable(
    'carts',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      sessionId: text('session_id').notNull(),
      status: text('status').notNull().$type<'active' | 'checked_out'>(),
      currency: text('currency').notNull(),
      customerContext: jsonb('customer_context').notNull().$type<CustomerContext>(),
      contactId: uuid('contact_id'),
      organizationId: uuid('organization_id'),
      promotionId: uuid('promotion_id'),
      promoCode: text('promo_code'),
      subtotalCents: bigint('subtotal_cents', { mode: 'number' }).notNull(),
      discountCents: bigint('discount_cents', { mode: 'number' }).notNull(),
      totalCents: bigint('total_cents', { mode: 'number' }).notNull(),
      /** Bumped by every change: a checkout that read the cart before its billing calls compares it. */
      version: integer('version').notNull().default(1),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
  ),
);

export interface CartLineCharge {
  chargeId: string;
  name: string;
  kind: 'modeled' | 'passthrough';
  chargeModel: string | null;
  amountCents: number | null;
}

export const cartItems = distributedTable(
  pgTable(
    'cart_items',
    {
      tenantId: uuid('tenant_id').notNull(),
      cartId: uuid('cart_id').notNull(),
      id: uuid('id').notNull(),
      productId: uuid('product_id').notNull(),
      productName: text('product_name').notNull(),
      productType: text('product_type').notNull(),
      quantity: bigint('quantity', { mode: 'number' }).notNull(),
      unitPriceCents: bigint('unit_price_cents', { mode: 'number' }).notNull(),
      totalCents: bigint('total_cents', { mode: 'number' }).notNull(),
      /** Before offers; the cart promo applies to the sum of line totals. */
      listCents: bigint('list_cents', { mode: 'number' }).notNull(),
      charges: jsonb('charges').notNull().$type<CartLineCharge[]>(),
      appliedOffers: jsonb('applied_offers')
        .notNull()
        .$type<{ id: string; name: string; discountCents: number }[]>(),
      appliedPriceRules: jsonb('applied_price_rules')
        .notNull()
        .$type<{ id: string; name: string; chargeId: string }[]>(),
      requiresQuote: boolean('requires_quote').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('cart_items_cart_idx').on(t.tenantId, t.cartId),
    ],
  ),
);

export type CartRow = typeof carts.$inferSelect;
export type ItemRow = typeof cartItems.$inferSelect;
