import { index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../db/table-traits.js';

/** The transactional outbox: one row per event, written in the transaction of the change. */
export const events = distributedTable(
  pgTable(
    'events',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      type: text('type').notNull(),
      occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
      /** The `data` of the delivered payload: the resource that changed. */
      payload: jsonb('payload').notNull(),
      requestId: text('request_id'),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('events_tenant_occurred_idx').on(t.tenantId, t.occurredAt),
    ],
  ),
);
