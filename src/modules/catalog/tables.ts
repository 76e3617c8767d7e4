import { sql } from 'drizzle-orm';
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
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';
import type { Charge, ChargeModel, PriceTier } from './price-engine/index.js';

/**
 * The text of a product searched by name (one without content): the index expression and the
 * query must be the same text for the index to serve the query.
 */
export const PRODUCT_SEARCH_TEXT = sql.raw(`name || ' ' || coalesce(description, '')`);

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
};

export const products = distributedTable(
  pgTable(
    'products',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      name: text('name').notNull(),
      description: text('description'),
      type: text('type').notNull().$type<'one_time' | 'subscription' | 'add_on'>(),
      family: text('family'),
      rank: integer('rank'),
      billingInterval: text('billing_interval').$type<'month' | 'year'>(),
      currency: text('currency').notNull(),
      active: boolean('active').notNull(),
      requiresShipping: boolean('requires_shipping').notNull().default(false),
      /** Feature key -> true/false, a number (limit), or null (unlimited). */
      entitlements: jsonb('entitlements').notNull().$type<Record<string, boolean | number | null>>(),
      charges: jsonb('charges').notNull().$type<Charge[]>(),
      ...timestamps,
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('products_tenant_created_idx').on(t.tenantId, t.createdAt),
      // Catalog search of products without content: their name and description (PRODUCT_SEARCH_TEXT).
      index('products_search_idx').using(
        'gin',
        sql`to_tsvector('simple'::regconfig, ${PRODUCT_SEARCH_TEXT})`,
      ),
      index('products_name_trgm_idx').using('gin', t.name.op('gin_trgm_ops')),
      // Catalog search keeps the matches of active products by this index alone (no heap read).
      index('products_active_idx').on(t.tenantId, t.id).where(sql`${t.active}`),
    ],
  ),
);

export const priceRules = distributedTable(
  pgTable(
    'price_rules',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      name: text('name').notNull(),
      productId: uuid('product_id').notNull(),
      chargeId: uuid('charge_id').notNull(),
      segment: text('segment'),
      locale: text('locale'),
      partner: text('partner'),
      chargeModel: text('charge_model').$type<ChargeModel>(),
      tiers: jsonb('tiers').notNull().$type<PriceTier[]>(),
      ...timestamps,
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('price_rules_tenant_product_idx').on(t.tenantId, t.productId),
    ],
  ),
);

export const offers = distributedTable(
  pgTable(
    'offers',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      name: text('name').notNull(),
      productId: uuid('product_id').notNull(),
      discountType: text('discount_type').notNull().$type<'percent' | 'amount'>(),
      percentOff: integer('percent_off'),
      amountOffCents: bigint('amount_off_cents', { mode: 'number' }),
      segment: text('segment'),
      partner: text('partner'),
      startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
      endsAt: timestamp('ends_at', { withTimezone: true }),
      active: boolean('active').notNull(),
      ...timestamps,
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('offers_tenant_product_idx').on(t.tenantId, t.productId),
    ],
  ),
);

export const promotions = distributedTable(
  pgTable(
    'promotions',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      /** Stored upper-case: codes are matched case-insensitively. */
      code: text('code').notNull(),
      name: text('name').notNull(),
      discountType: text('discount_type').notNull().$type<'percent' | 'amount'>(),
      percentOff: integer('percent_off'),
      amountOffCents: bigint('amount_off_cents', { mode: 'number' }),
      currency: text('currency'),
      minSubtotalCents: bigint('min_subtotal_cents', { mode: 'number' }).notNull(),
      startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
      endsAt: timestamp('ends_at', { withTimezone: true }),
      usageLimit: integer('usage_limit'),
      timesRedeemed: integer('times_redeemed').notNull(),
      active: boolean('active').notNull(),
      ...timestamps,
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('promotions_tenant_code_key').on(t.tenantId, t.code),
    ],
  ),
);

export const planLinks = distributedTable(
  pgTable(
    'plan_links',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      sourceProductId: uuid('source_product_id').notNull(),
      sourceChargeId: uuid('source_charge_id').notNull(),
      targetProductId: uuid('target_product_id').notNull(),
      targetChargeId: uuid('target_charge_id').notNull(),
      targetField: text('target_field').notNull(),
      explanation: text('explanation').notNull(),
      ...timestamps,
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('plan_links_tenant_source_idx').on(t.tenantId, t.sourceProductId),
    ],
  ),
);

export const planChangeRules = distributedTable(
  pgTable(
    'plan_change_rules',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      name: text('name').notNull(),
      family: text('family'),
      fromProductId: uuid('from_product_id'),
      toProductId: uuid('to_product_id'),
      direction: text('direction').$type<'upgrade' | 'downgrade' | 'lateral'>(),
      changeTiming: text('change_timing').notNull().$type<'immediate' | 'end_of_period'>(),
      prorationType: text('proration_type').notNull().$type<'prorated' | 'none' | 'full_credit'>(),
      ...timestamps,
    },
    (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
  ),
);
