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
import { distributedTable } from '../../db/table-traits.js';

/**
 * Order numbers come from one sequence: increasing within every tenant, unique, gaps allowed,
 * and no hot counter row to lock (sequences never block or roll back).
 */
export const orderNumberSeq = pgSequence('order_number_seq', { startWith: 1000 });

export const ORDER_PAYMENT_STATUSES = [
  'unpaid',
  'partially_paid',
  'paid',
  'partially_refunded',
  'refunded',
] as const;
export type OrderPaymentStatus = (typeof ORDER_PAYMENT_STATUSES)[number];

export interface OrderLine {
  productId: string;
  productName: string | null;
  quantity: number;
  /** Resolved price of the line (authoritative), or the submitted hint for unpriced lines. */
  priceCents: number;
  totalCents: number;
  priced: 'engine' | 'quote' | 'submitted';
}

/** How a checkout's order is delivered, when it ships: the option chosen and its price (in `totalCents`). */
export interface OrderShipping {
  optionId: string;
  name: string;
  amountCents: number;
  /** Where it goes, as the checkout took it. */
  address?: {
    name?: string | undefined;
    line1: string;
    line2?: string | undefined;
    city: string;
    region?: string | undefined;
    postalCode: string;
    country: string;
  } | null;
}

export const orders = distributedTable(
  pgTable(
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
      /** The agentic checkout session the order was placed from (ACP or UCP), if any. */
      checkoutSessionId: uuid('checkout_session_id'),
      shipping: jsonb('shipping').$type<OrderShipping | null>(),
      /**
       * What the order asks to be paid: its invoice's amount when invoiced at creation, else its
       * total (kept with it on PATCH). `paymentStatus` compares the money below against it.
       */
      dueCents: bigint('due_cents', { mode: 'number' }).notNull().default(0),
      /** Paid on the order: its sessions' successes (less reversals), or its invoice's amount less balance. */
      paidCents: bigint('paid_cents', { mode: 'number' }).notNull().default(0),
      /** Given back by succeeded refunds of its sessions. */
      refundedCents: bigint('refunded_cents', { mode: 'number' }).notNull().default(0),
      /** Derived from the three above; written with them in the unit of work that moved the money. */
      paymentStatus: text('payment_status').notNull().$type<OrderPaymentStatus>().default('unpaid'),
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
      index('orders_tenant_invoice_idx').on(t.tenantId, t.invoiceId),
      index('orders_tenant_payment_status_idx').on(t.tenantId, t.paymentStatus, t.sequence),
    ],
  ),
);

/** Platform usage metering (opt-in per tenant), written after an order's response. */
export const usageEvents = distributedTable(
  pgTable(
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
  ),
);
