import { sql } from 'drizzle-orm';
import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

export type SubscriptionStatus = 'active' | 'pending_change' | 'pending_cancellation' | 'cancelled';
export type BillingInterval = 'month' | 'year';

/** A change decided now and applied at `effectiveAt` (the period end) by the scheduler. */
export interface PendingChange {
  kind: 'plan' | 'quantity';
  productId: string;
  productName: string;
  quantity: number;
  priceCents: number;
  billingInterval: BillingInterval;
  effectiveAt: string;
}

export const subscriptions = distributedTable(
  pgTable(
    'subscriptions',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      productId: uuid('product_id').notNull(),
      /** The product's name when the subscription last changed plan (events name it even if renamed). */
      productName: text('product_name').notNull(),
      /** Set on add-ons: the subscription they extend. */
      parentSubscriptionId: uuid('parent_subscription_id'),
      contactId: uuid('contact_id'),
      organizationId: uuid('organization_id'),
      orderId: uuid('order_id'),
      /** The billing system's account and subscription, when the subscription is billing-linked. */
      billingAccountId: text('billing_account_id'),
      billingSubscriptionId: text('billing_subscription_id'),
      quantity: bigint('quantity', { mode: 'number' }).notNull(),
      /** Price of one period for the whole quantity, minor units (what a renewal invoices). */
      priceCents: bigint('price_cents', { mode: 'number' }).notNull(),
      currency: text('currency').notNull(),
      billingInterval: text('billing_interval').notNull().$type<BillingInterval>(),
      status: text('status').notNull().$type<SubscriptionStatus>(),
      customerContext: jsonb('customer_context').notNull().$type<Record<string, string | null>>(),
      /** Periods are counted from this instant (month ends clamp; the day is never lost). */
      billingAnchor: timestamp('billing_anchor', { withTimezone: true }).notNull(),
      currentPeriodStart: timestamp('current_period_start', { withTimezone: true }).notNull(),
      currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }).notNull(),
      pendingChange: jsonb('pending_change').$type<PendingChange>(),
      cancelledAt: timestamp('cancelled_at', { withTimezone: true }),
      /** Bumped by every change: previews name it, and a change made on an older one is 409. */
      version: integer('version').notNull(),
      /**
       * A billing-system call in flight for this subscription (its idempotency key): taken before
       * the adapter is called, cleared by the commit. Another change meanwhile is 409; the same
       * change (same key) may finish it after a crash.
       */
      operationKey: text('operation_key'),
      operationAt: timestamp('operation_at', { withTimezone: true }),
      /**
       * The end of the last period invoiced, when an early renewal billed the next period before the
       * current one ended: the scheduler then moves into that period without invoicing it again.
       */
      billedThrough: timestamp('billed_through', { withTimezone: true }),
      /** Key/value tags set by the caller (PUT /{resource}/{id}/tags/{key}). */
      tags: jsonb('tags').notNull().$type<Record<string, string>>().default({}),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('subscriptions_tenant_created_idx').on(t.tenantId, t.createdAt),
      index('subscriptions_tenant_org_idx').on(t.tenantId, t.organizationId),
      index('subscriptions_tenant_parent_idx').on(t.tenantId, t.parentSubscriptionId),
      // The scheduler's scan: due periods of live subscriptions.
      index('subscriptions_due_idx').on(t.currentPeriodEnd),
      // One local subscription per billing-system subscription: a retried provision cannot duplicate.
      uniqueIndex('subscriptions_billing_subscription_key').on(t.tenantId, t.billingSubscriptionId),
      // One subscription per order and product.
      uniqueIndex('subscriptions_order_product_key')
        .on(t.tenantId, t.orderId, t.productId)
        .where(sql`order_id is not null`),
    ],
  ),
);
