import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import { validationFailed } from '../../core/errors.js';
import { type CursorKeys, encodeCursor, type ListScope, pageRequest } from '../../core/paging.js';
import type { Queryable } from '../../db/client.js';
import { readTogether } from '../../db/read-together.js';
import { pricingDataRead, resolvePrice } from '../catalog/index.js';
import {
  acceptedLocales,
  chooseLocale,
  contentsOfProductsRead,
  languageConfig,
  type StoredContent,
} from '../product-content/index.js';
import { getTenant } from '../tenants/index.js';
import type { CatalogResultSchema, CatalogSearchQuery } from './schemas.js';
import { SEARCH_DEPTH_MAX, SEARCH_LIMIT_DEFAULT } from './schemas.js';
import { type CatalogFacets, type CatalogHit, searchCatalog } from './search.js';

export type CatalogResultApi = Static<typeof CatalogResultSchema>;
export type CatalogSearchInput = Static<typeof CatalogSearchQuery> & { acceptLanguage?: string | undefined };

export interface CatalogSearchPage {
  results: CatalogResultApi[];
  facets: CatalogFacets;
  total: number;
  limit: number;
  nextCursor: string | null;
}

const EXCERPT_LENGTH = 300;

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

function presentHit(
  hit: CatalogHit,
  content: StoredContent | undefined,
  wanted: string[],
  defaultLocale: string,
  product: { name: string; description: string | null; type: CatalogResultApi['type']; currency: string },
  price: { listPriceCents: number; priceCents: number },
): CatalogResultApi {
  const locale = content
    ? chooseLocale(Object.keys(content.document.locales), wanted, defaultLocale)
    : undefined;
  const fields = locale === undefined ? undefined : content?.document.locales[locale];
  const description = fields ? fields.description : product.description;
  const image = fields?.media.filter((m) => m.type === 'image').sort((a, b) => a.position - b.position)[0];
  return {
    productId: hit.productId,
    title: fields?.title ?? product.name,
    slug: content?.document.slug ?? null,
    locale: locale ?? null,
    excerpt: description === null ? null : description.slice(0, EXCERPT_LENGTH),
    brand: fields?.brand ?? null,
    category: fields?.category ?? null,
    condition: fields?.condition ?? null,
    image: image ? { url: image.url, alt: image.alt } : null,
    type: product.type,
    currency: product.currency,
    ...price,
    availability: hit.availability,
    available: hit.available,
    score: hit.score,
  };
}

/**
 * GET /catalog/search: the published products matching the query, a page of them presented in the
 * reader's locale with their price for one unit (the pricing engine: rules and offers, no customer
 * context), and facets over every match. Two round trips: the search, then the page's products,
 * prices and content together.
 */
export async function searchPublishedCatalog(
  db: Queryable,
  tenantId: string,
  keys: CursorKeys,
  input: CatalogSearchInput,
  now: Date,
): Promise<CatalogSearchPage> {
  const { priceMinCents: min, priceMaxCents: max } = input;
  if (min !== undefined && max !== undefined && min > max)
    throw validationFailed(
      'query.priceMinCents',
      'maximum',
      'query.priceMinCents is above query.priceMaxCents',
    );
  const scope = searchScope(tenantId, keys, input);
  const page = pageRequest(scope, { limit: input.limit ?? SEARCH_LIMIT_DEFAULT, cursor: input.cursor }, [
    'integer',
  ]);
  const limit = page?.limit ?? SEARCH_LIMIT_DEFAULT;
  const offset = Math.min(Math.max(Number(page?.after?.[0] ?? 0), 0), SEARCH_DEPTH_MAX);
  const tenant = await getTenant(db, tenantId);
  const defaultLocale = tenant?.defaultLocale ?? 'en';
  const wanted = input.locale ? [input.locale] : acceptedLocales(input.acceptLanguage);
  const found = await searchCatalog(
    db,
    tenantId,
    {
      q: input.q ?? '',
      language: languageConfig(wanted[0] ?? defaultLocale),
      locales: [...wanted, defaultLocale],
      category: input.category,
      brand: input.brand,
      priceMinCents: input.priceMinCents,
      priceMaxCents: input.priceMaxCents,
      currency: input.currency,
      availability: input.availability,
    },
    { offset, limit: Math.min(limit, SEARCH_DEPTH_MAX - offset) },
  );
  const ids = found.hits.map((h) => h.productId);
  const [pricing, contents] =
    ids.length === 0
      ? [{ products: [], rules: [], offers: [] }, new Map<string, StoredContent>()]
      : await readTogether(db, [pricingDataRead(tenantId, ids), contentsOfProductsRead(tenantId, ids)]);
  const products = new Map(pricing.products.map((p) => [p.id, p]));
  const context = { locale: wanted[0] ?? defaultLocale };
  const results = found.hits.flatMap((hit) => {
    const product = products.get(hit.productId);
    if (!product) return [];
    const { rules, offers } = pricing;
    const price = resolvePrice({ product, quantity: 1, context, rules, offers, now });
    const prices = { listPriceCents: price.basePriceCents, priceCents: price.totalCents };
    return [presentHit(hit, contents.get(hit.productId), wanted, defaultLocale, product, prices)];
  });
  const end = offset + found.hits.length;
  const more = end < Math.min(found.total, SEARCH_DEPTH_MAX);
  return {
    results,
    facets: found.facets,
    total: found.total,
    limit,
    nextCursor: more ? encodeCursor(scope, [end]) : null,
  };
}
