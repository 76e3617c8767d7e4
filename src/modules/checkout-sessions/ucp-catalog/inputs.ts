import { AppError, validationFailed } from '../../../core/errors.js';
import type { CatalogLookupInput, CatalogSearchInput } from '../../storefront/index.js';
import { LOCALE_PATTERN } from '../../tenants/index.js';
import type { UcpMessage } from '../ucp/messages.js';
import { SEARCH_PAGE_DEFAULT, SEARCH_PAGE_MAX } from './request-schemas.js';

// A catalog request in our search's words: the filters, the reader's language and the page, and
// what we accept without using (catalog/index.md, "Context": hints only), said in info messages
// where the platform would otherwise believe it was applied.

interface UcpFilters {
  categories?: string[];
  price?: { min?: number; max?: number };
  [other: string]: unknown;
}

interface UcpContext {
  language?: string;
  currency?: string;
}

/** What search, lookup and get_product take alike. */
interface CatalogRequest {
  filters?: UcpFilters;
  context?: UcpContext;
}

/** A catalog request read: our search's input, what to tell the platform, and the price filter's currency. */
export interface CatalogReading<I> {
  input: I;
  messages: UcpMessage[];
  /** Set when a price filter came with `context.currency`: products in another currency are not bounded. */
  priceFilterCurrency: string | undefined;
}

const LOCALE = new RegExp(LOCALE_PATTERN);
const STANDARD_FILTERS = new Set(['categories', 'price']);

/** `context.language` as one of our locale tags (`fr-ca` is `fr-CA`); undefined when it is not one. */
function localeOf(language: string | undefined): string | undefined {
  if (!language) return undefined;
  try {
    const [tag] = Intl.getCanonicalLocales(language);
    return tag !== undefined && LOCALE.test(tag) ? tag : undefined;
  } catch {
    return undefined;
  }
}

/** lookup_catalog and get_product: the filters and the reader (a search adds its words and page). */
export function lookupInputOf(
  body: CatalogRequest,
  acceptLanguage: string | undefined,
): CatalogReading<CatalogLookupInput> {
  const filters = body.filters ?? {};
  const { min, max } = filters.price ?? {};
  if (min !== undefined && max !== undefined && min > max)
    throw validationFailed('filters.price.min', 'maximum', 'filters.price.min is above filters.price.max');
  const priced = min !== undefined || max !== undefined;
  const currency = body.context?.currency?.trim().toUpperCase() || undefined;
  const priceFilterCurrency = priced ? currency : undefined;
  const ignored = Object.keys(filters).filter((name) => !STANDARD_FILTERS.has(name));
  const messages = ignored.map(
    (name): UcpMessage => ({
      type: 'info',
      code: 'filter_ignored',
      content: `The filter ${name} is not supported: it was ignored (supported: categories, price).`,
    }),
  );
  const categories = filters.categories?.filter((c) => c !== '');
  return {
    input: {
      locale: localeOf(body.context?.language),
      acceptLanguage,
      ...(categories?.length ? { categories } : {}),
      ...(min !== undefined ? { priceMinCents: min } : {}),
      ...(max !== undefined ? { priceMaxCents: max } : {}),
      ...(priceFilterCurrency ? { priceCurrency: priceFilterCurrency } : {}),
    },
    messages,
    priceFilterCurrency,
  };
}

/**
 * search_catalog: the words, the filters and the page. A search needs an input to search by
 * (search.md, "Search Inputs"): `query`, or a category or price filter to browse by; else 400.
 */
export function searchInputOf(
  body: CatalogRequest & { query?: string; pagination?: { cursor?: string; limit?: number } },
  acceptLanguage: string | undefined,
): CatalogReading<CatalogSearchInput> {
  const reading = lookupInputOf(body, acceptLanguage);
  const q = body.query?.trim() || undefined;
  const { categories, priceMinCents, priceMaxCents } = reading.input;
  if (!q && !categories && priceMinCents === undefined && priceMaxCents === undefined)
    throw validationFailed(
      'query',
      'required',
      'Send query, or filters.categories or filters.price to browse by: a search needs one of them',
    );
  const { cursor, limit = SEARCH_PAGE_DEFAULT } = body.pagination ?? {};
  return {
    ...reading,
    input: {
      ...reading.input,
      ...(q ? { q } : {}),
      limit: Math.min(limit, SEARCH_PAGE_MAX),
      ...(cursor !== undefined ? { cursor } : {}),
    },
  };
}

/** Our search's cursor errors name `query.cursor`; in UCP the cursor is `pagination.cursor`. */
export async function withPaginationErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const detail = err instanceof AppError ? err.details?.[0] : undefined;
    if (!detail?.field?.startsWith('query.cursor')) throw err;
    const message = detail.message.replace('query.cursor', 'pagination.cursor');
    throw validationFailed('pagination.cursor', detail.rule ?? 'format', message);
  }
}
