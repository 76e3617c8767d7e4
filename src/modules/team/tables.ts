import { sql } from 'drizzle-orm';
import { check, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { referenceTable } from '../../db/table-traits.js';
import { tenants } from '../tenants/index.js';

// Reference tables on Citus, as api_keys: a sign-in looks a user up by email, and a session or a
// link by its token's hash, before the tenant is known; the email and the hashes are unique across
// tenants (docs/decisions.md, "Console users").

export const consoleUsers = referenceTable(
  pgTable(
    'console_users',
    {
      tenantId: uuid('tenant_id')
        .notNull()
        .references(() => tenants.id),
      id: uuid('id').notNull(),
      /** Lower-cased: one person signs in with one address, whatever its case. */
      email: text('email').notNull(),
      name: text('name').notNull(),
      role: text('role').notNull(),
      status: text('status').notNull(),
      /** `scrypt$N$r$p$salt$hash`; null until the user sets a password (an invitation, a sign-in link). */
      passwordHash: text('password_hash'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
      lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true }),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('console_users_email_key').on(t.email),
      index('console_users_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
      check(
        'console_users_role_check',
        sql`${t.role} in ('owner', 'admin', 'developer', 'support', 'viewer')`,
      ),
      check('console_users_status_check', sql`${t.status} in ('active', 'disabled')`),
    ],
  ),
);

export const consoleSessions = referenceTable(
  pgTable(
    'console_sessions',
    {
      tenantId: uuid('tenant_id')
        .notNull()
        .references(() => tenants.id),
      id: uuid('id').notNull(),
      userId: uuid('user_id').notNull(),
      /** SHA-256 hex of the cookie's token; the token itself is never stored. */
      tokenHash: text('token_hash').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      /** Idle expiry counts from here (moved at most once a minute). */
      lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
      /** Absolute expiry. */
      expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
      revokedAt: timestamp('revoked_at', { withTimezone: true }),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('console_sessions_token_hash_key').on(t.tokenHash),
      index('console_sessions_tenant_user_idx').on(t.tenantId, t.userId),
    ],
  ),
);

export const consoleLinkTokens = referenceTable(
  pgTable(
    'console_link_tokens',
    {
      tenantId: uuid('tenant_id')
        .notNull()
        .references(() => tenants.id),
      id: uuid('id').notNull(),
      userId: uuid('user_id').notNull(),
      purpose: text('purpose').notNull(),
      /** SHA-256 hex of the link's token; the token is in the link only. */
      tokenHash: text('token_hash').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
      usedAt: timestamp('used_at', { withTimezone: true }),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('console_link_tokens_token_hash_key').on(t.tokenHash),
      index('console_link_tokens_tenant_user_idx').on(t.tenantId, t.userId),
      check(
        'console_link_tokens_purpose_check',
        sql`${t.purpose} in ('sign_in', 'invitation', 'password_reset')`,
      ),
    ],
  ),
);

// Failed sign-ins, counted per account and per address over a rolling window: kept in the
// database so every instance counts the same failures, and aged out as new ones are recorded.
export const consoleLoginFailures = referenceTable(
  pgTable(
    'console_login_failures',
    {
      id: uuid('id').primaryKey(),
      email: text('email').notNull(),
      address: text('address').notNull(),
      at: timestamp('at', { withTimezone: true }).notNull(),
    },
    (t) => [
      index('console_login_failures_email_at_idx').on(t.email, t.at),
      index('console_login_failures_address_at_idx').on(t.address, t.at),
      index('console_login_failures_at_idx').on(t.at),
    ],
  ),
);
