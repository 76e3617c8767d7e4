import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { Static } from 'typebox';
import { iso, isoOrNull } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { type ScalarRead, tenantRead } from '../../db/read-together.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { getTenant } from '../tenants/index.js';
import { renderMarkdown } from './markdown.js';
import type { ContentVersionSchema, LocalizedContentSchema, ProductContentSchema } from './schemas.js';
import {
  type ContentDocument,
  type LocaleFields,
  productContent,
  productContentMeta,
  productContentVersions,
} from './tables.js';

export type ProductContentApi = Static<typeof ProductContentSchema>;
export type LocalizedContentApi = Static<typeof LocalizedContentSchema>;
export type ContentVersionApi = Static<typeof ContentVersionSchema>;

/** A product's content as stored now: the document, its version and when it last changed. */
export interface StoredContent {
  productId: string;
  document: ContentDocument;
  version: number;
  updatedAt: Date | null;
}

const meta = productContentMeta;
const pc = productContent;
const versions = productContentVersions;

const fieldsOf = (row: typeof pc.$inferSelect): LocaleFields => ({
  title: row.title,
  description: row.description,
  media: row.media,
  brand: row.brand,
  gtin: row.gtin,
  mpn: row.mpn,
  condition: row.condition,
  category: row.category,
  attributes: row.attributes,
});

/** The product's content, or undefined when it has none (no row of either table). */
export async function readContent(
  db: Queryable,
  tenantId: string,
  productId: string,
): Promise<StoredContent | undefined> {
  const [head] = await db
    .select()
    .from(meta)
    .where(tenantWhere(meta, tenantId, eq(meta.productId, productId)));
  if (!head) return undefined;
  const rows = await db
    .select()
    .from(pc)
    .where(tenantWhere(pc, tenantId, eq(pc.productId, productId)))
    .orderBy(asc(pc.locale));
  return {
    productId,
    document: {
      slug: head.slug,
      status: head.status,
      locales: Object.fromEntries(rows.map((row) => [row.locale, fieldsOf(row)])),
    },
    version: head.version,
    updatedAt: head.version === 0 ? null : head.updatedAt,
  };
}

const localeList = (document: ContentDocument) =>
  Object.keys(document.locales)
    .sort()
    .map((locale) => ({ locale, ...(document.locales[locale] as LocaleFields) }));

export function presentContent(stored: StoredContent): ProductContentApi {
  const { document } = stored;
  return {
    productId: stored.productId,
    slug: document.slug,
    status: document.status,
    version: stored.version,
    locales: localeList(document),
    updatedAt: isoOrNull(stored.updatedAt),
  };
}

/** Every version of the product's content, newest first. */
export async function listVersions(
  db: Queryable,
  tenantId: string,
  productId: string,
): Promise<ContentVersionApi[]> {
  const rows = await db
    .select()
    .from(versions)
    .where(tenantWhere(versions, tenantId, eq(versions.productId, productId)))
    .orderBy(desc(versions.version));
  return rows.map((row) => ({
    version: row.version,
    change: row.change,
    actorKeyId: row.actorKeyId,
    createdAt: iso(row.createdAt),
    slug: row.document.slug,
    status: row.document.status,
    locales: localeList(row.document),
  }));
}

export async function readVersion(
  db: Queryable,
  tenantId: string,
  productId: string,
  version: number,
): Promise<ContentDocument | undefined> {
  const [row] = await db
    .select({ document: versions.document })
    .from(versions)
    .where(
      tenantWhere(versions, tenantId, and(eq(versions.productId, productId), eq(versions.version, version))),
    );
  return row?.document;
}

/** Language tags of an Accept-Language header, best first (q=0 dropped, `*` ignored). */
export function acceptedLocales(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag.trim(), q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((x) => x.tag !== '' && x.tag !== '*' && Number.isFinite(x.q) && x.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((x) => x.tag);
}

/**
 * The locale to show: the first wanted one the content has (exact, case-insensitive, then its
 * language alone, then another region of that language), else the tenant's default, else the
 * first by tag.
 */
export function chooseLocale(
  available: string[],
  wanted: string[],
  defaultLocale: string,
): string | undefined {
  const byLower = new Map(available.map((l) => [l.toLowerCase(), l]));
  const sorted = [...available].sort();
  for (const tag of wanted) {
    const lower = tag.toLowerCase();
    const language = lower.split('-')[0] ?? lower;
    const found =
      byLower.get(lower) ??
      byLower.get(language) ??
      sorted.find((l) => l.toLowerCase().startsWith(`${language}-`));
    if (found) return found;
  }
  return byLower.get(defaultLocale.toLowerCase()) ?? sorted[0];
}

/** The content in one locale, for buyers and agents: the description also as sanitised HTML. */
export function presentLocalized(stored: StoredContent, locale: string): LocalizedContentApi {
  const fields = stored.document.locales[locale] as LocaleFields;
  return {
    productId: stored.productId,
    slug: stored.document.slug,
    locale,
    availableLocales: Object.keys(stored.document.locales).sort(),
    ...fields,
    media: [...fields.media].sort((a, b) => a.position - b.position),
    descriptionHtml: fields.description === null ? null : renderMarkdown(fields.description),
    version: stored.version,
    updatedAt: iso(stored.updatedAt ?? new Date(0)),
  };
}

/**
 * Of `productIds`, those whose content is a `draft`: not to be offered to buyers or agents. A
 * product without content is published (products were on sale before content existed).
 */
export async function unpublishedProductIds(
  db: Queryable,
  tenantId: string,
  productIds: readonly string[],
): Promise<Set<string>> {
  if (productIds.length === 0) return new Set();
  const rows = await db
    .select({ productId: meta.productId })
    .from(meta)
    .where(
      tenantWhere(meta, tenantId, and(inArray(meta.productId, [...productIds]), eq(meta.status, 'draft'))),
    );
  return new Set(rows.map((r) => r.productId));
}

const draftsRead = tenantRead(
  meta,
  {
    select: `coalesce(json_agg(product_id), '[]')`,
    where: "product_id = any(?::uuid[]) and status = 'draft'",
  },
  (v) => (v ?? []) as string[],
);

/**
 * The products among `productIds` whose content is a draft (not offered to buyers and agents), as
 * one value a purchase reads with its other data (`readTogether`): no extra round trip.
 */
export function draftProductsRead(tenantId: string, productIds: readonly string[]): ScalarRead<string[]> {
  return draftsRead(tenantId, `{${productIds.join(',')}}`);
}

/**
 * The content a reader asked for, in the locale chosen from `wanted` (see chooseLocale, with the
 * tenant's default locale); undefined when the product has none, or only a draft and `drafts`
 * is false (a buyer's or agent's key: drafts are not offered).
 */
export async function contentForReader(
  db: Queryable,
  tenantId: string,
  productId: string,
  wanted: string[],
  drafts: boolean,
): Promise<LocalizedContentApi | undefined> {
  const stored = await readContent(db, tenantId, productId);
  if (!stored || (stored.document.status === 'draft' && !drafts)) return undefined;
  const tenant = await getTenant(db, tenantId);
  const locale = chooseLocale(Object.keys(stored.document.locales), wanted, tenant?.defaultLocale ?? 'en');
  return locale === undefined ? undefined : presentLocalized(stored, locale);
}

const contentsRead = tenantRead(
  meta,
  {
    select: `coalesce(json_agg(json_build_object('productId', product_id, 'slug', slug, 'status', status,
      'version', version, 'updatedAt', updated_at, 'locales', (select coalesce(json_object_agg(pc.locale,
        json_build_object('title', pc.title, 'description', pc.description, 'media', pc.media, 'brand', pc.brand,
          'gtin', pc.gtin, 'mpn', pc.mpn, 'condition', pc.condition, 'category', pc.category,
          'attributes', pc.attributes)), '{}')
        from product_content pc
        where pc.tenant_id = product_content_meta.tenant_id and pc.product_id = product_content_meta.product_id))), '[]')`,
    where: 'product_id = any(?::uuid[])',
  },
  (value) => {
    type Row = Omit<StoredContent, 'document' | 'updatedAt'> & ContentDocument & { updatedAt: string };
    const rows = (value ?? []) as Row[];
    return new Map(
      rows.map((r): [string, StoredContent] => [
        r.productId,
        {
          productId: r.productId,
          document: { slug: r.slug, status: r.status, locales: r.locales },
          version: r.version,
          updatedAt: r.version === 0 ? null : new Date(r.updatedAt),
        },
      ]),
    );
  },
);

/**
 * The content of several products by product id (drafts included: the caller decides), as one
 * value read with others (`readTogether`): a search page shows its products' content this way.
 */
export function contentsOfProductsRead(
  tenantId: string,
  productIds: readonly string[],
): ScalarRead<Map<string, StoredContent>> {
  return contentsRead(tenantId, `{${productIds.join(',')}}`);
}
