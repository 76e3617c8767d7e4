import { boolean, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

export const policies = distributedTable(
  pgTable(
    'policies',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      name: text('name').notNull(),
      type: text('type').notNull().$type<'order_create' | 'order_update' | 'plan_change'>(),
      /** A JSONLogic expression over the documented input of the policy type. */
      condition: jsonb('condition').notNull().$type<unknown>(),
      effect: text('effect').notNull().$type<'block' | 'allow'>(),
      active: boolean('active').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.tenantId, t.id] })],
  ),
);
