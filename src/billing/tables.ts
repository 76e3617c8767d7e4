import { jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../db/table-traits.js';

/** A tenant's active billing integration: zero or one per tenant. */
export const billingIntegrations = distributedTable(
  pgTable('billing_integrations', {
    tenantId: uuid('tenant_id').primaryKey(),
    adapter: text('adapter').notNull(),
    config: jsonb('config').notNull().$type<Record<string, unknown>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  }),
);
