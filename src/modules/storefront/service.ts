import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import { validationFailed } from '../../core/errors.js';
import { type CursorKeys, encodeCursor, type ListScope, pageRequest } from '../../core/paging.js';
import type { Queryable } from '../../db/client.js';
import { languageConfig } from '../product-content/index.js';
import {
  type CatalogResultApi,
  type PublishedProduct,
  presentHits,
  type Reader,
  readerOf,
  searchResultOf,
} from './published.js';
import type { CatalogSearchQuery } from './schemas.js';
import { SEARCH_DEPTH_MAX, SEARCH_LIMIT_DEFAULT } from './schemas.js';
import { type CatalogFacets, type CatalogQuery, searchCatalog } from './search.js';

export type CatalogSearchInput = Static<typeof CatalogSearchQuery> & {
  acceptLanguage?: string | undefined;
  /** Any of these categories, each a path or its prefix (UCP's `filters.categories`). */
  categories?: string[] | undefined;
  /** The currency of the price bounds: products priced in another are not bounded (no conversion). */
  priceCurrency?: string | undefined;
};

export interface CatalogSearchPage {
  results: CatalogResultApi[];
  facets: CatalogFacets;
  total: number;
  limit: number;
  nextCursor: string | null;
}

/** A page of search matches presented in full (the UCP catalog shows them so). */
export interface PublishedPage extends Omit<CatalogSearchPage, 'results'> {
  products: PublishedProduct[];
}

/** What a lookup by identifier takes besides the identifiers: the reader and the filters. */
export type CatalogLookupInput = Pick<
  CatalogSearchInput,
  'locale' | 'acceptLanguage' | 'categories' | 'priceMinCents' | 'priceMaxCents' | 'priceCurrency'
>;

/**
 * A cursor pages one search: its filters are part of the list's name, so a cursor used with other
 * words or filters is refused (400) instead of paging another result set.
 */
function searchScope(tenantId: string, keys: CursorKeys, input: CatalogSearchInput): ListScope {
  const { cursor: _cursor, limit: _limit, cartId: _cartId, acceptLanguage: _header, ...filters } = input;
  const digest = createHash('sha256')
    .update(JSON.stringify(Object.entries(filters).sort()))
    .digest('base64url')
    .slice(0, 16);
  return { tenantId, list: `catalog_search:${digest}`, keys };
}

/** The search statement's query: the words and filters of `input`, in the reader's language. */
function catalogQuery(input: CatalogSearchInput, reader: Reader): CatalogQuery {
  const { priceMinCents: min, priceMaxCents: max } = input;
  if (min !== undefined && max !== undefined && min > max)
    throw validationFailed(
      'query.priceMinCents',
      'maximum',
      'query.priceMinCents is above query.priceMaxCents',
    );
  return {
    q: input.q ?? '',
    language: languageConfig(reader.wanted[0] ?? reader.defaultLocale),
    locales: [...reader.wanted, reader.defaultLocale],
    category: input.category,
    categories: input.categories,
    brand: input.brand,
    priceMinCents: min,
    priceMaxCents: max,
    priceCurrency: input.priceCurrency,
    currency: input.currency,
    availability: input.availability,
  };
}

/**
 * The published products matching the query: a page of them presented in full in the reader's
 * locale with their price for one unit (the pricing engine: rules and offers, no customer
 * context), and facets over every match. Two round trips: the search, then the page's products,
 * prices and content together.
 */
export async function searchPublishedProducts(
  db: Queryable,
  tenantId: string,
  keys: CursorKeys,
  input: CatalogSearchInput,
  now: Date,
): Promise<PublishedPage> {
  const reader = await readerOf(db, tenantId, input);
  const query = catalogQuery(input, reader);
  const scope = searchScope(tenantId, keys, input);
  const page = pageRequest(scope, { limit: input.limit ?? SEARCH_LIMIT_DEFAULT, cursor: input.cursor }, [
    'integer',
  ]);
  const limit = page?.limit ?? SEARCH_LIMIT_DEFAULT;
  const offset = Math.min(Math.max(Number(page?.after?.[0] ?? 0), 0), SEARCH_DEPTH_MAX);
  const found = await searchCatalog(db, tenantId, query, {
    offset,
    limit: Math.min(limit, SEARCH_DEPTH_MAX - offset),
  });
  const end = offset + found.hits.length;
  const more = end < Math.min(found.total, SEARCH_DEPTH_MAX);
  return {
    products: await presentHits(db, tenantId, found.hits, reader, now),
    facets: found.facets,
    total: found.total,
    limit,
    nextCursor: more ? encodeCursor(scope, [end]) : null,
  };
}

/** GET /catalog/search: `searchPublishedProducts`, each product as a search result (an excerpt). */
export async function searchPublishedCatalog(
  db: Queryable,
  tenantId: string,
  keys: CursorKeys,
  input: CatalogSearchInput,
  now: Date,
): Promise<CatalogSearchPage> {
  const { products, ...page } = await searchPublishedProducts(db, tenantId, keys, input, now);
  return { ...page, results: products.map(searchResultOf) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * The published, active products of the tenant that `identifiers` name, each by its id (a UUID)
 * or its content's slug, presented as a search presents them, with the same filters applied.
 * What names nothing of the tenant (another tenant's id, a draft, an inactive product, a filtered
 * out one, anything else) is simply not there: at most one product per identifier, each once.
 */
export async function lookupPublishedProducts(
  db: Queryable,
  tenantId: string,
  identifiers: readonly string[],
  input: CatalogLookupInput,
  now: Date,
): Promise<PublishedProduct[]> {
  const ids = [...new Set(identifiers.filter((i) => UUID.test(i)).map((i) => i.toLowerCase()))];
  const slugs = [...new Set(identifiers.filter((i) => i.length <= 100 && SLUG.test(i)))];
  if (ids.length === 0 && slugs.length === 0) return [];
  const reader = await readerOf(db, tenantId, input);
  const query = { ...catalogQuery(input, reader), only: { ids, slugs } };
  // A lookup shows no facets: the statement skips counting them.
  const found = await searchCatalog(db, tenantId, query, {
    offset: 0,
    limit: ids.length + slugs.length,
    facets: false,
  });
  return presentHits(db, tenantId, found.hits, reader, now);
}
