import { sql } from 'drizzle-orm';
import {
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

export const PRODUCT_CONTENT_STATUSES = ['draft', 'published'] as const;
export type ProductContentStatus = (typeof PRODUCT_CONTENT_STATUSES)[number];

export const CONDITIONS = ['new', 'refurbished', 'used'] as const;
export type Condition = (typeof CONDITIONS)[number];

/** An image or a video of the product, shown in `position` order. */
export interface MediaItem {
  url: string;
  type: 'image' | 'video';
  alt: string;
  position: number;
}

/** A typed key/value fact (`material: "steel"`, `weight_kg: 1.2`, `dishwasher_safe: true`). */
export type Attribute =
  | { key: string; type: 'string'; value: string }
  | { key: string; type: 'number'; value: number }
  | { key: string; type: 'boolean'; value: boolean };

/** The fields of one locale's content, as stored and as a version keeps them. */
export interface LocaleFields {
  title: string;
  description: string | null;
  media: MediaItem[];
  brand: string | null;
  gtin: string | null;
  mpn: string | null;
  condition: Condition | null;
  category: string | null;
  attributes: Attribute[];
}

/** A product's whole content: what a version keeps and a restore writes back. */
export interface ContentDocument {
  slug: string | null;
  status: ProductContentStatus;
  locales: Record<string, LocaleFields>;
}

/** A full-text document (`tsvector`): written as SQL, never read back by the application. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
};

/**
 * What a product's content has once, whatever the locale: its slug (unique per tenant) and its
 * status, and the version of the whole content. Written with the first content; a product
 * without this row has no content and counts as published (it was on sale before content existed).
 */
export const productContentMeta = distributedTable(
  pgTable(
    'product_content_meta',
    {
      tenantId: uuid('tenant_id').notNull(),
      productId: uuid('product_id').notNull(),
      slug: text('slug'),
      status: text('status').notNull().$type<ProductContentStatus>(),
      /** 0 until the first write; each write adds one and keeps the result as that version. */
      version: integer('version').notNull(),
      ...timestamps,
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.productId] }),
      uniqueIndex('product_content_meta_slug_idx').on(t.tenantId, t.slug),
      // Catalog search leaves drafts out by this index: they are few, every product is not.
      index('product_content_meta_drafts_idx').on(t.tenantId, t.productId).where(sql`${t.status} = 'draft'`),
    ],
  ),
);

/** A product's content in one locale (BCP 47 tag, e.g. `en`, `fr-CA`). */
export const productContent = distributedTable(
  pgTable(
    'product_content',
    {
      tenantId: uuid('tenant_id').notNull(),
      productId: uuid('product_id').notNull(),
      locale: text('locale').notNull(),
      title: text('title').notNull(),
      /** Markdown as written; rendered and sanitised on output. */
      description: text('description'),
      media: jsonb('media').notNull().$type<MediaItem[]>(),
      brand: text('brand'),
      gtin: text('gtin'),
      mpn: text('mpn'),
      condition: text('condition').$type<Condition>(),
      /** A path of a standard taxonomy, e.g. Google's `Home & Garden > Kitchen & Dining`. */
      category: text('category'),
      attributes: jsonb('attributes').notNull().$type<Attribute[]>(),
      /**
       * What catalog search matches (`searchVectorOf`): title, brand, category, attributes and
       * description, weighted in that order, in the locale's language and without stemming.
       */
      searchVector: tsvector('search_vector'),
      ...timestamps,
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.productId, t.locale] }),
      index('product_content_search_idx').using('gin', t.searchVector),
      // Typo tolerance: trigram similarity of the title (pg_trgm).
      index('product_content_title_trgm_idx').using('gin', t.title.op('gin_trgm_ops')),
    ],
  ),
);

/** Every version of a product's content, the current one included: the history and what restore reads. */
export const productContentVersions = distributedTable(
  pgTable(
    'product_content_versions',
    {
      tenantId: uuid('tenant_id').notNull(),
      productId: uuid('product_id').notNull(),
      version: integer('version').notNull(),
      /** What made it: `put`, `patch`, `restore`. */
      change: text('change').notNull(),
      /** The key that made it (null: not a request). */
      actorKeyId: uuid('actor_key_id'),
      document: jsonb('document').notNull().$type<ContentDocument>(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.tenantId, t.productId, t.version] })],
  ),
);
