import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

export const CONTENT_STATUSES = ['draft', 'published'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];

/**
 * A content page of the tenant (terms, privacy, returns, shipping, FAQ...): one row per key and
 * locale, holding its current version. Markdown body, kept as written. Only `published` entries
 * are served by the public reads; every write adds a row to `content_versions`.
 */
export const contentEntries = distributedTable(
  pgTable(
    'content_entries',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      /** A slug: lower-case letters, digits and single hyphens. */
      key: text('key').notNull(),
      /** A BCP 47 tag: `en`, `de-CH`, `zh-Hant-TW`. */
      locale: text('locale').notNull(),
      title: text('title').notNull(),
      /** Markdown, stored as given. */
      body: text('body').notNull(),
      status: text('status').notNull().$type<ContentStatus>(),
      /** The current version: 1 on create, +1 on every write. */
      version: integer('version').notNull(),
      /** When it last became `published`; null while a draft. */
      publishedAt: timestamp('published_at', { withTimezone: true }),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('content_entries_key_locale_idx').on(t.tenantId, t.key, t.locale),
      index('content_entries_created_idx').on(t.tenantId, t.createdAt, t.id),
    ],
  ),
);

/** Every version an entry has had (the current one too), as it was written; never changed. */
export const contentVersions = distributedTable(
  pgTable(
    'content_versions',
    {
      tenantId: uuid('tenant_id').notNull(),
      entryId: uuid('entry_id').notNull(),
      version: integer('version').notNull(),
      title: text('title').notNull(),
      body: text('body').notNull(),
      status: text('status').notNull().$type<ContentStatus>(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.tenantId, t.entryId, t.version] })],
  ),
);
