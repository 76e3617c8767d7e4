// The catalog's bench fixtures, made inside the bench server (bench/server.ts): a tenant with
// BENCH_SEARCH_PRODUCTS published products with content (100,000 by default, written by SQL),
// the raw baseline of GET /catalog/search, and per bench tenant two stock-tracked copies of its
// order products (POST /orders with and without stock tracking).
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { Database } from '../src/db/client.js';
import { issueApiKey } from '../src/modules/api-keys/index.js';
import { productCrud } from '../src/modules/catalog/index.js';
import {
  type CatalogQuery,
  catalogSearchStatement,
  type MatchMode,
} from '../src/modules/storefront/index.js';
import { createTenant } from '../src/modules/tenants/index.js';

type ProductCreate = Parameters<typeof productCrud.service.create>[2];

/** What the runner needs of these fixtures (bench/scenarios/catalog.ts). */
export interface CatalogFixtures {
  search: { tenantId: string; keys: string[]; products: number };
  /** Per bench tenant: stock-tracked copies of its two order products. */
  tracked: Record<string, { productId: string; oneTimeProductId: string }>;
}

/** The queries the search rows rotate over: two words, one word of many matches, a typo. */
export const SEARCH_QUERIES = ['steel knife', 'mug', 'blue linen', 'cofee'] as const;

const words = (list: string[]) => `array[${list.map((w) => `'${w}'`).join(',')}]`;
const COLOURS = words(['Blue', 'Red', 'Green', 'Black', 'White', 'Grey', 'Olive', 'Sand', 'Navy', 'Rust']);
const MATERIALS = words(['steel', 'oak', 'linen', 'stoneware', 'glass', 'copper', 'wool', 'bamboo']);
const NOUNS = words([
  'knife',
  'mug',
  'bowl',
  'apron',
  'board',
  'pan',
  'kettle',
  'towel',
  'jar',
  'coffee grinder',
  'teapot',
  'spoon',
]);
const BRANDS = words(['Acme', 'Brewco', 'Forge & Field', 'Nordhem', 'Ostra', 'Pellow']);
const CATEGORIES = words([
  'Home & Garden > Kitchen & Dining > Cookware',
  'Home & Garden > Kitchen & Dining > Drinkware',
  'Home & Garden > Kitchen & Dining > Knives',
  'Home & Garden > Linens & Bedding > Kitchen Linens',
]);

/** `count` published products with English content in the tenant, one statement per table. */
async function seedSearchCatalog(database: Database, tenantId: string, count: number) {
  const id = sql.raw(`md5('${tenantId}' || n)::uuid`);
  const pick = (list: string, step: number) => sql.raw(`(${list})[1 + (n / ${step}) % cardinality(${list})]`);
  const title = sql`${pick(COLOURS, 1)} || ' ' || ${pick(MATERIALS, 10)} || ' ' || ${pick(NOUNS, 80)} || ' ' || n`;
  await database.db.execute(sql`
    insert into products (tenant_id, id, name, description, type, currency, active, requires_shipping,
      entitlements, charges, created_at, updated_at)
    select ${tenantId}::uuid, ${id}, 'Bench product ' || n, null, 'one_time', 'USD', true, true, '{}'::jsonb,
      jsonb_build_array(jsonb_build_object('id', ${id}, 'name', 'Unit', 'kind', 'modeled', 'chargeModel',
        'per_unit', 'tiers', jsonb_build_array(jsonb_build_object('upTo', null, 'unitPriceCents',
        500 + (n * 37) % 20000, 'flatPriceCents', 0)))), now(), now()
    from generate_series(1, ${count}) n`);
  await database.db.execute(sql`
    insert into product_content_meta (tenant_id, product_id, slug, status, version, created_at, updated_at)
    select ${tenantId}::uuid, ${id}, 'bench-' || n, 'published', 1, now(), now()
    from generate_series(1, ${count}) n`);
  // The document searchVectorOf writes for English content: as written and stemmed, weighted.
  const doc = (config: string) =>
    sql.raw(`setweight(to_tsvector('${config}', title), 'A') ||
      setweight(to_tsvector('${config}', coalesce(brand, '') || ' ' || coalesce(category, '')), 'B') ||
      setweight(to_tsvector('${config}', coalesce(description, '')), 'C')`);
  await database.db.execute(sql`
    with c as (
      select n, ${title} as title, ${pick(BRANDS, 3)} as brand, ${pick(CATEGORIES, 7)} as category,
        'A ' || ${pick(MATERIALS, 10)} || ' piece for everyday use, made to last.' as description
      from generate_series(1, ${count}) n)
    insert into product_content (tenant_id, product_id, locale, title, description, media, brand, gtin, mpn,
      condition, category, attributes, search_vector, created_at, updated_at)
    select ${tenantId}::uuid, ${id}, 'en', title, description,
      jsonb_build_array(jsonb_build_object('url', 'https://cdn.example/' || n || '.jpg', 'type', 'image',
        'alt', title, 'position', 0)), brand, null, null, 'new', category, '[]'::jsonb,
      ${doc('simple')} || ${doc('english')}, now(), now()
    from c`);
  // Every tenth product tracked, half of those sold out: the availability facet has two values.
  await database.db.execute(sql`
    insert into product_stock (tenant_id, product_id, tracked, on_hand, reserved, created_at, updated_at)
    select ${tenantId}::uuid, ${id}, true, case when n % 20 = 0 then 0 else 50 end, 0, now(), now()
    from generate_series(10, ${count}, 10) n`);
  for (const table of ['products', 'product_content', 'product_content_meta', 'product_stock'])
    await database.db.execute(sql.raw(`vacuum analyze ${table}`));
}

/**
 * The search tenant (with keys to rotate: one key's 10,000 requests a minute are below a row's
 * load) and the tracked copies of each bench tenant's order products (stock far from running out).
 */
export async function catalogFixtures(
  database: Database,
  benchTenants: { tenantId: string }[],
  /** The definitions of the bench tenants' two order products (plan, one-time pack), copied. */
  orderProducts: readonly [ProductCreate, ProductCreate],
  products: number,
): Promise<CatalogFixtures> {
  const tenant = await createTenant(database.db, 'bench search tenant');
  await seedSearchCatalog(database, tenant.id, products);
  const keys: string[] = [];
  for (let i = 0; i < 10; i++) {
    const { secret } = await issueApiKey(database.db, tenant.id, {
      name: `bench search ${i}`,
      scopes: ['read'],
      rateTier: 'unlimited',
      environment: 'sandbox',
    });
    keys.push(secret);
  }
  const tracked: CatalogFixtures['tracked'] = {};
  for (const f of benchTenants) {
    const copies = await database.db.transaction(async (tx) => {
      const out: string[] = [];
      for (const definition of orderProducts) {
        const copy = await productCrud.service.create(
          tx,
          f.tenantId,
          { ...definition, name: `${definition.name} (tracked)` },
          new Date(),
        );
        await tx.execute(sql`insert into product_stock (tenant_id, product_id, tracked, on_hand, reserved,
          created_at, updated_at) values (${f.tenantId}, ${copy.id}, true, 1000000000, 0, now(), now())`);
        out.push(copy.id);
      }
      return out;
    });
    tracked[f.tenantId] = { productId: copies[0] as string, oneTimeProductId: copies[1] as string };
  }
  return { search: { tenantId: tenant.id, keys, products }, tracked };
}

/**
 * GET /raw/search/:tenantId?q=: the statement GET /catalog/search runs for an English reader's
 * first page of 20, rendered once per query and sent with raw node-postgres (no framework, no
 * presentation, no pricing): the baseline of the search rows.
 */
export function rawSearchRoute(bare: FastifyInstance, pool: pg.Pool) {
  const dialect = new PgDialect();
  const rendered = new Map<string, { sql: string; params: unknown[] }>();
  const statement = (tenantId: string, q: string, mode: MatchMode) => {
    const key = `${tenantId}:${q}:${mode}`;
    let query = rendered.get(key);
    if (!query) {
      const search: CatalogQuery = { q, language: 'english', locales: ['en', 'en'] };
      query = dialect.sqlToQuery(catalogSearchStatement(tenantId, search, { offset: 0, limit: 20 }, mode));
      rendered.set(key, query);
    }
    return query;
  };
  bare.get<{ Params: { tenantId: string }; Querystring: { q: string } }>(
    '/raw/search/:tenantId',
    async (request) => {
      const { tenantId } = request.params;
      const words = statement(tenantId, request.query.q, 'words');
      const { rows } = await pool.query(words.sql, words.params);
      if (rows[0]?.total > 0) return rows[0];
      // As the API does: typo tolerance when the words match nothing.
      const typos = statement(tenantId, request.query.q, 'typos');
      return (await pool.query(typos.sql, typos.params)).rows[0];
    },
  );
}
