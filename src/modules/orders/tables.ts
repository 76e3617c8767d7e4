import { sql } from 'drizzle-orm';
import {
  bigint,
  index,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * Order numbers come from one sequence: increasing within every tenant, unique, gaps allowed,
 * and no hot counter row to lock (sequences never block or roll back).
 */
export const orderNumberSeq = pgSequence('order_number_seq', { startWith: 1000 });

export interface OrderLine {
  productId: string;
  productName: string | null;
  quantity: number;
  /** Resolved price of the line (authoritative), or the submitted hint for unpriced lines. */
  priceCents: number;
  totalCents: number;
  priced: 'engine' | 'quote' | 'submitted';
}

export const orders = pgTable(
  'orders',
  {
    tenantId: uuid('tenant_id').notNull(),
    id: uuid('id').notNull(),
    /** From order_number_seq by default (no extra round trip); the API shows it as `ORD-<n>`. */
    sequence: bigint('sequence', { mode: 'number' }).notNull().default(sql`nextval('order_number_seq')`),
    status: text('status').notNull(),
    items: jsonb('items').notNull().$type<OrderLine[]>(),
    totalCents: bigint('total_cents', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    contactId: uuid('contact_id'),
    organizationId: uuid('organization_id'),
    journeyId: uuid('journey_id'),
    cartId: uuid('cart_id'),
    customerContext: jsonb('customer_context').notNull().$type<Record<string, unknown>>(),
    promoCode: text('promo_code'),
    discountCents: bigint('discount_cents', { mode: 'number' }).notNull(),
    billingAccountId: text('billing_account_id'),
    invoiceId: text('invoice_id'),
    /** Key/value tags set by the caller (PUT /{resource}/{id}/tags/{key}). */
    tags: jsonb('tags').notNull().$type<Record<string, string>>().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('orders_tenant_created_idx').on(t.tenantId, t.createdAt),
    // The list order (newest first by number): whole lists and keyset pages read it in order.
    index('orders_tenant_sequence_idx').on(t.tenantId, t.sequence),
    index('orders_tenant_cart_idx').on(t.tenantId, t.cartId),
  ],
);

/** Platform usage metering (opt-in per tenant), written after an order's response. */
export const usageEvents = pgTable(
  'usage_events',
  {
    tenantId: uuid('tenant_id').notNull(),
    id: uuid('id').notNull(),
    kind: text('kind').notNull(),
    orderId: uuid('order_id').notNull(),
    quantity: bigint('quantity', { mode: 'number' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
);
