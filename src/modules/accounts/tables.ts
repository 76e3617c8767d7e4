import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

/** Tenant-owned accounts (organizations). */
export const organizations = distributedTable(
  pgTable(
    'organizations',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      name: text('name').notNull(),
      /**
       * The caller's id for it; a billing-system account id here links the account to its invoices.
       * One account per `externalId` in a tenant: the billing account's invoices and the account's
       * credit then meet in one place (a second account linked to it would hold credit nothing pays).
       */
      externalId: text('external_id'),
      email: text('email'),
      phone: text('phone'),
      website: text('website'),
      industry: text('industry'),
      /** Key/value tags set by the caller (PUT /{resource}/{id}/tags/{key}). */
      tags: jsonb('tags').notNull().$type<Record<string, string>>().default({}),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('organizations_tenant_created_idx').on(t.tenantId, t.createdAt),
      // GET /accounts?q=: a substring of the name or the email, any case (ILIKE '%q%').
      index('organizations_name_trgm_idx').using('gin', t.name.op('gin_trgm_ops')),
      index('organizations_email_trgm_idx').using('gin', t.email.op('gin_trgm_ops')),
      uniqueIndex('organizations_tenant_external_id_key')
        .on(t.tenantId, t.externalId)
        .where(sql`external_id is not null`),
    ],
  ),
);
