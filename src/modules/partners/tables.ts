import { sql } from 'drizzle-orm';
import { check, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

/** A partner price rules and pricing contexts name by `code`. */
export const partners = distributedTable(
  pgTable(
    'partners',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      name: text('name').notNull(),
      code: text('code').notNull(),
      status: text('status').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('partners_tenant_code_key').on(t.tenantId, t.code),
      check('partners_status_check', sql`${t.status} in ('active', 'inactive')`),
    ],
  ),
);
