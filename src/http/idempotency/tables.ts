import { index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

/**
 * Idempotent requests, scoped to (tenant, key, method, path). A row is first a **claim**, taken
 * with the request hash before the operation has any effect (no response yet, a claim token and a
 * lease); the response is written in the same transaction as the mutation it guards, so neither
 * can exist without the other.
 */
export const idempotencyKeys = distributedTable(
  pgTable(
    'idempotency_keys',
    {
      tenantId: uuid('tenant_id').notNull(),
      idempotencyKey: text('idempotency_key').notNull(),
      method: text('method').notNull(),
      path: text('path').notNull(),
      /** SHA-256 of the RFC 8785 canonical form of the request body and query. */
      requestHash: text('request_hash').notNull(),
      /** Null while the request is in flight (a claim). */
      responseStatus: integer('response_status'),
      /** The exact bytes sent the first time, replayed as they are; null while in flight. */
      responseBody: text('response_body'),
      /** The request holding the claim (and, once answered, the one that answered). */
      claimToken: text('claim_token'),
      /** Until when the claim is held; after it a retry of the same request may take it over. */
      claimedUntil: timestamp('claimed_until', { withTimezone: true }),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.idempotencyKey, t.method, t.path] }),
      index('idempotency_keys_expires_idx').on(t.expiresAt),
    ],
  ),
  (t) => [
    {
      column: t.responseBody,
      key: [t.tenantId, t.idempotencyKey, t.method, t.path],
      purpose: 'idempotent_response',
    },
  ],
);
