import { index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Completed idempotent requests, scoped to (tenant, key, method, path). A row is written in the
 * same transaction as the mutation it guards, so neither can exist without the other.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    tenantId: uuid('tenant_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    /** SHA-256 of the RFC 8785 canonical form of the request body and query. */
    requestHash: text('request_hash').notNull(),
    responseStatus: integer('response_status').notNull(),
    /** The exact bytes sent the first time, replayed as they are. */
    responseBody: text('response_body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.idempotencyKey, t.method, t.path] }),
    index('idempotency_keys_expires_idx').on(t.expiresAt),
  ],
);
