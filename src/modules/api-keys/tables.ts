import { sql } from 'drizzle-orm';
import { check, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { referenceTable } from '../../db/table-traits.js';
import { tenants } from '../tenants/index.js';

// A reference table on Citus: authentication looks a key up by its hash before it knows the
// tenant, and the hash is unique across tenants (a unique index without tenant_id).
export const apiKeys = referenceTable(
  pgTable(
    'api_keys',
    {
      tenantId: uuid('tenant_id')
        .notNull()
        .references(() => tenants.id),
      id: uuid('id').notNull(),
      name: text('name').notNull(),
      environment: text('environment').notNull(),
      scopes: text('scopes').array().notNull(),
      rateTier: text('rate_tier').notNull(),
      /** First characters of the key (`cak_live_AbCd`), safe to show so people can tell keys apart. */
      keyPrefix: text('key_prefix').notNull(),
      /** SHA-256 hex of the whole key; the key itself is never stored. */
      keyHash: text('key_hash').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
      lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
      revokedAt: timestamp('revoked_at', { withTimezone: true }),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
      index('api_keys_tenant_created_idx').on(t.tenantId, t.createdAt),
      check('api_keys_environment_check', sql`${t.environment} in ('production', 'sandbox')`),
      check('api_keys_rate_tier_check', sql`${t.rateTier} in ('standard', 'premium', 'unlimited')`),
    ],
  ),
);
