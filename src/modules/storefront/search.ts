import { type SQL, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { rowsOf } from '../../db/client.js';
import { PLAN_PER_CALL } from '../../db/prepared-statements.js';
import { PRODUCT_SEARCH_TEXT } from '../catalog/index.js';
import { type Availability, availabilitySql } from '../stock/index.js';

/** What a search asks for: the words, the filters and the reader's locales (best first). */
export interface CatalogQuery {
  q: string;
  /** The text-search configuration of the reader's language (`english`, `simple`...). */
  language: string;
  /** Locales whose content is preferred when several of a product's locales match. */
  locales: string[];
  category?: string | undefined;
  brand?: string | undefined;
  priceMinCents?: number | undefined;
  priceMaxCents?: number | undefined;
  currency?: string | undefined;
  availability?: Availability | undefined;
  /** Any of these categories, each a path or its prefix (`category` is one of them). */
  categories?: string[] | undefined;
  /**
   * The currency `priceMinCents`/`priceMaxCents` are in: products priced in another are not bounded
   * by them (amounts are not converted). Absent: each product's own currency.
   */
  priceCurrency?: string | undefined;
  /** Only these products: by id (UUIDs) or by slug. */
  only?: { ids: string[]; slugs: string[] } | undefined;
}

/** One product found, before presentation: why it ranks where it does and what filters saw. */
export interface CatalogHit {
  productId: string;
  score: number;
  availability: Availability;
  /** Units available now, for a tracked product; null when not tracked. */
  available: number | null;
}

export interface FacetCount {
  value: string;
  count: number;
}

export interface CatalogFacets {
  brand: FacetCount[];
  category: FacetCount[];
  availability: FacetCount[];
}

export interface CatalogResults {
  hits: CatalogHit[];
  total: number;
  facets: CatalogFacets;
}

/** How many values a facet lists, most frequent first. */
const FACET_VALUES = 20;

/** `%` and `_` of a LIKE pattern taken literally. */
const likeLiteral = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The list price of one unit in SQL (the price engine's charge math at quantity 1, before rules and
 * offers): what `priceMinCents`/`priceMaxCents` compare, since a filter cannot run the engine on every row.
 */
const LIST_PRICE = sql.raw(`(select coalesce(sum(case
    when c->>'kind' <> 'modeled' then 0
    when c->>'chargeModel' = 'flat_fee' then coalesce((c->'tiers'->0->>'flatPriceCents')::bigint, 0)
    else coalesce((c->'tiers'->0->>'unitPriceCents')::bigint, 0) + coalesce((c->'tiers'->0->>'flatPriceCents')::bigint, 0)
  end), 0) from jsonb_array_elements(p.charges) c)`);

/**
 * How words match: `words`, full text (title, brand, category, attributes, description, in the
 * reader's language and as written); `typos`, a title or name within trigram word similarity of
 * the words (pg_trgm), tried only when full text finds nothing: computing similarity is most of a
 * query's cost, and a query whose words exist needs none.
 */
export type MatchMode = 'words' | 'typos';

/**
 * Products matching `q`: published content in any locale, and products without content by name
 * and description. Without `q`, every published product. A product counts once, under its
 * best-matching locale (the reader's first when it matches).
 */
function matches(tenantId: string, query: CatalogQuery, mode: MatchMode): SQL {
  const words = query.q.trim();
  const tsq = sql`(websearch_to_tsquery('simple', ${words}) || websearch_to_tsquery(${query.language}::regconfig, ${words}))`;
  const nameText = sql`to_tsvector('simple'::regconfig, ${PRODUCT_SEARCH_TEXT})`;
  const [contentMatch, contentRank, nameMatch, nameRank] = !words
    ? [sql`true`, sql`0`, sql`true`, sql`0`]
    : mode === 'words'
      ? [
          sql`pc.search_vector @@ ${tsq}`,
          sql`ts_rank(pc.search_vector, ${tsq})`,
          sql`${nameText} @@ ${tsq}`,
          sql`ts_rank(${nameText}, ${tsq})`,
        ]
      : [
          sql`${words} <% pc.title`,
          sql`word_similarity(${words}, pc.title)`,
          sql`${words} <% p.name`,
          sql`word_similarity(${words}, p.name)`,
        ];
  const preferred = `{${query.locales.join(',')}}`;
  const { only } = query;
  const ids = `{${only?.ids.join(',') ?? ''}}`;
  const contentOnly = only
    ? sql`(pc.product_id = any(${ids}::uuid[]) or pc.product_id in (select s.product_id from product_content_meta s
        where s.tenant_id = ${tenantId} and s.slug = any(${`{${only.slugs.join(',')}}`}::text[])))`
    : sql`true`;
  const productOnly = only ? sql`p.id = any(${ids}::uuid[])` : sql`true`;
  // Drafts are few: the anti-join reads them through a partial index, not every product's status.
  return sql`
    (select distinct on (pc.product_id) pc.product_id, pc.title, pc.brand, pc.category, ${contentRank} as score
       from product_content pc
      where pc.tenant_id = ${tenantId} and ${contentOnly} and ${contentMatch} and not exists (
        select 1 from product_content_meta m
         where m.tenant_id = ${tenantId} and m.product_id = pc.product_id and m.status = 'draft')
      order by pc.product_id, pc.locale = any(${preferred}::text[]) desc, score desc)
    union all
    (select p.id, p.name, null, null, ${nameRank}
       from products p
      where p.tenant_id = ${tenantId} and ${productOnly} and ${nameMatch} and not exists (
        select 1 from product_content_meta m where m.tenant_id = ${tenantId} and m.product_id = p.id))`;
}

/** The category or one below it: `Home & Garden` also finds `Home & Garden > Kitchen`. */
const inCategory = (category: string) =>
  sql`(h.category = ${category} or h.category like ${`${likeLiteral(category)} > %`})`;

/** The list-price bounds, for the products they apply to (those in `priceCurrency`, when given). */
function priceBounds(query: CatalogQuery): SQL | undefined {
  const bounds: SQL[] = [];
  if (query.priceMinCents !== undefined) bounds.push(sql`${LIST_PRICE} >= ${query.priceMinCents}`);
  if (query.priceMaxCents !== undefined) bounds.push(sql`${LIST_PRICE} <= ${query.priceMaxCents}`);
  if (bounds.length === 0) return undefined;
  const within = sql.join(bounds, sql` and `);
  return query.priceCurrency === undefined
    ? within
    : sql`(p.currency <> ${query.priceCurrency} or (${within}))`;
}

function filters(query: CatalogQuery): SQL {
  const conditions: SQL[] = [sql`p.active`];
  if (query.brand !== undefined) conditions.push(sql`lower(h.brand) = lower(${query.brand})`);
  if (query.category !== undefined) conditions.push(inCategory(query.category));
  if (query.categories?.length)
    conditions.push(sql`(${sql.join(query.categories.map(inCategory), sql` or `)})`);
  if (query.currency !== undefined) conditions.push(sql`p.currency = ${query.currency}`);
  const price = priceBounds(query);
  if (price) conditions.push(price);
  if (query.availability !== undefined) conditions.push(sql`${availabilitySql('s')} = ${query.availability}`);
  return sql.join(conditions, sql` and `);
}

const facet = (column: string) =>
  sql.raw(`(select coalesce(json_agg(f), '[]') from (select ${column} as value, count(*)::int as count
    from hits where ${column} is not null group by ${column} order by count(*) desc, ${column}
    limit ${FACET_VALUES}) f)`);

/** A page of matches; `facets: false` when the caller shows none (a lookup by id), which skips them. */
export interface SearchPage {
  offset: number;
  limit: number;
  facets?: boolean;
}

const NO_FACETS = sql.raw(`'[]'::json as brand, '[]'::json as category, '[]'::json as availability`);

/**
 * One statement: the matches, filtered, counted, their facets (unless `page.facets` is false), and
 * the page (`offset`, `limit`) by score then title. Every table is read under the tenant's id (one
 * shard on Citus). The bench runs it raw as the baseline of GET /catalog/search.
 */
export function catalogSearchStatement(
  tenantId: string,
  query: CatalogQuery,
  page: SearchPage,
  mode: MatchMode = 'words',
): SQL {
  const facets =
    page.facets === false
      ? NO_FACETS
      : sql`${facet('brand')} as brand, ${facet('category')} as category, ${facet('availability')} as availability`;
  return sql`${sql.raw(PLAN_PER_CALL)}
    with hits as materialized (
      select h.product_id, h.title, h.brand, h.category, h.score,
             ${availabilitySql('s')} as availability,
             case when s.tracked then greatest(s.on_hand - s.reserved, 0) end as available
        from (${matches(tenantId, query, mode)}) h
        join products p on p.tenant_id = ${tenantId} and p.id = h.product_id
        left join product_stock s on s.tenant_id = ${tenantId} and s.product_id = h.product_id
       where ${filters(query)})
    select (select count(*)::int from hits) as total,
      (select coalesce(json_agg(json_build_object('productId', product_id, 'score', score,
          'availability', availability, 'available', available)), '[]')
         from (select * from hits order by score desc, title, product_id
               limit ${page.limit} offset ${page.offset}) x) as hits,
      ${facets}`;
}

/** The search: by words, and by typos when the words match nothing. */
export async function searchCatalog(
  db: Queryable,
  tenantId: string,
  query: CatalogQuery,
  page: SearchPage,
): Promise<CatalogResults> {
  const found = await searchIn(db, tenantId, query, page, 'words');
  return found.total > 0 || !query.q.trim() ? found : searchIn(db, tenantId, query, page, 'typos');
}

/**
 * Runs the typo statement where the planner takes the trigram indexes. It costs `<%` as a cheap
 * filter, so it scans every title instead of the GIN index (gin_trgm_ops) that finds the few
 * candidates: at 100,000 products about 660 ms against 45 ms for the titles alone (EXPLAIN
 * ANALYZE, docs/decisions.md). Sequential scans are off for this one statement's transaction.
 */
function withTrigramIndexes(db: Queryable, statement: SQL) {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('enable_seqscan', 'off', true)`);
    return tx.execute(statement);
  });
}

async function searchIn(
  db: Queryable,
  tenantId: string,
  query: CatalogQuery,
  page: SearchPage,
  mode: MatchMode,
): Promise<CatalogResults> {
  const statement = catalogSearchStatement(tenantId, query, page, mode);
  const [row] = rowsOf<{
    total: number;
    hits: CatalogHit[];
    brand: FacetCount[];
    category: FacetCount[];
    availability: FacetCount[];
  }>(mode === 'typos' ? await withTrigramIndexes(db, statement) : await db.execute(statement));
  if (!row) return { hits: [], total: 0, facets: { brand: [], category: [], availability: [] } };
  return {
    total: row.total,
    hits: row.hits.map((h) => ({ ...h, score: Math.round(h.score * 10_000) / 10_000 })),
    facets: { brand: row.brand, category: row.category, availability: row.availability },
  };
}
