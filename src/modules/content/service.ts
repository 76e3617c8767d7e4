import { and, asc, desc, eq } from 'drizzle-orm';
import type { Static } from 'typebox';
import type { PageRequest } from '../../core/paging.js';
import type { Queryable } from '../../db/client.js';
import { rowsAfter } from '../../db/keyset.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { getTenant } from '../tenants/index.js';
import {
  type ContentEntrySchema,
  type ContentVersionSchema,
  DEFAULT_LOCALE,
  type PublicContentSchema,
} from './schemas.js';
import { type ContentStatus, contentEntries, contentVersions } from './tables.js';

export type ContentEntryRow = typeof contentEntries.$inferSelect;
export type ContentVersionRow = typeof contentVersions.$inferSelect;
export type ContentEntryApi = Static<typeof ContentEntrySchema>;

const e = contentEntries;
const v = contentVersions;

/** The tenant's entry of this key and locale (locked to the end of the transaction with `forUpdate`). */
export async function findEntry(
  db: Queryable,
  tenantId: string,
  key: string,
  locale: string,
  forUpdate = false,
): Promise<ContentEntryRow | undefined> {
  const query = db
    .select()
    .from(e)
    .where(tenantWhere(e, tenantId, eq(e.key, key), eq(e.locale, locale)));
  const [row] = await (forUpdate ? query.for('update') : query);
  return row;
}

/** The tenant's entries, newest first, filtered by status, locale and key; a page when asked. */
export async function listEntries(
  db: Queryable,
  tenantId: string,
  filters: { status?: ContentStatus | undefined; locale?: string | undefined; key?: string | undefined },
  page: PageRequest | null = null,
): Promise<ContentEntryRow[]> {
  const query = db
    .select()
    .from(e)
    .where(
      tenantWhere(
        e,
        tenantId,
        filters.status === undefined ? undefined : eq(e.status, filters.status),
        filters.locale === undefined ? undefined : eq(e.locale, filters.locale),
        filters.key === undefined ? undefined : eq(e.key, filters.key),
        page?.after ? rowsAfter([e.createdAt, e.id], page.after, true) : undefined,
      ),
    )
    .orderBy(desc(e.createdAt), desc(e.id));
  return page ? query.limit(page.limit + 1) : query;
}

/** Every version of an entry, newest first. */
export function listVersions(db: Queryable, tenantId: string, entryId: string): Promise<ContentVersionRow[]> {
  return db
    .select()
    .from(v)
    .where(tenantWhere(v, tenantId, eq(v.entryId, entryId)))
    .orderBy(desc(v.version));
}

export async function findVersion(
  db: Queryable,
  tenantId: string,
  entryId: string,
  version: number,
): Promise<ContentVersionRow | undefined> {
  const [row] = await db
    .select()
    .from(v)
    .where(tenantWhere(v, tenantId, and(eq(v.entryId, entryId), eq(v.version, version))));
  return row;
}

/**
 * Locales an Accept-Language header asks for, most wanted first (`q=0` and `*` left out, tags
 * that are not well-formed skipped): `de-CH, de;q=0.9, en;q=0.5` -> `de-CH`, `de`, `en`.
 */
export function acceptedLocales(header: string | undefined): string[] {
  if (!header) return [];
  const ranked = header
    .split(',')
    .slice(0, 20)
    .map((part, order) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((x) => x !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), order };
    })
    .filter((r) => /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(r.tag) && r.q > 0);
  return ranked.sort((a, b) => b.q - a.q || a.order - b.order).map((r) => r.tag);
}

/**
 * Of the published locales of a key, the one to serve: the first wanted locale that matches
 * exactly (case-insensitively) or by its language (`de-CH` takes `de`, then any `de-*`), else
 * the tenant's default locale, else `en`, else the first published locale by name. Undefined when
 * none is published.
 */
export function pickLocale<T extends { locale: string }>(
  published: T[],
  wanted: string[],
  tenantDefault: string = DEFAULT_LOCALE,
): T | undefined {
  const lower = (s: string) => s.toLowerCase();
  const language = (s: string) => lower(s).split('-')[0];
  for (const tag of [...wanted, tenantDefault, DEFAULT_LOCALE]) {
    const found =
      published.find((r) => lower(r.locale) === lower(tag)) ??
      published.find((r) => lower(r.locale) === language(tag)) ??
      published.find((r) => language(r.locale) === language(tag));
    if (found) return found;
  }
  return [...published].sort((a, b) => (a.locale < b.locale ? -1 : 1))[0];
}

/** The published entry of `key` in the best locale for `wanted`, or undefined. */
export async function findPublished(
  db: Queryable,
  tenantId: string,
  key: string,
  wanted: string[],
): Promise<ContentEntryRow | undefined> {
  const rows = await db
    .select()
    .from(e)
    .where(tenantWhere(e, tenantId, eq(e.key, key), eq(e.status, 'published')))
    .orderBy(asc(e.locale));
  return pickLocale(rows, wanted, (await getTenant(db, tenantId))?.defaultLocale);
}

export function presentEntry(row: ContentEntryRow): ContentEntryApi {
  return {
    id: row.id,
    key: row.key,
    locale: row.locale,
    title: row.title,
    body: row.body,
    status: row.status,
    version: row.version,
    publishedAt: row.publishedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function presentVersion(row: ContentVersionRow): Static<typeof ContentVersionSchema> {
  return {
    version: row.version,
    title: row.title,
    body: row.body,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
  };
}

export function presentPublic(row: ContentEntryRow): Static<typeof PublicContentSchema> {
  return {
    key: row.key,
    locale: row.locale,
    title: row.title,
    body: row.body,
    version: row.version,
    publishedAt: (row.publishedAt ?? row.updatedAt).toISOString(),
  };
}
