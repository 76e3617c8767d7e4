import { bigint, boolean, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

export const shippingOptions = distributedTable(
  pgTable(
    'shipping_options',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      name: text('name').notNull(),
      amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
      currency: text('currency').notNull(),
      /** ISO 3166-1 alpha-2 codes; empty means every country. */
      countries: text('countries').array().notNull(),
      minDays: integer('min_days').notNull(),
      maxDays: integer('max_days').notNull(),
      active: boolean('active').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
  ),
);
