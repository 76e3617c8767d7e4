import type { Static } from 'typebox';
import type { Queryable } from '../../db/client.js';
import { readTogether } from '../../db/read-together.js';
import { pricingDataRead, resolvePrice } from '../catalog/index.js';
import {
  acceptedLocales,
  chooseLocale,
  contentsOfProductsRead,
  type StoredContent,
} from '../product-content/index.js';
import { getTenant } from '../tenants/index.js';
import type { CatalogResultSchema } from './schemas.js';
import type { CatalogHit } from './search.js';

// A published product as buyers and agents are shown it, whichever way it was found (a search, or
// its id): its content in the reader's locale, its price for one unit from the pricing engine and
// its availability. GET /catalog/search shows an excerpt of it; the UCP catalog shows all of it.

export type CatalogResultApi = Static<typeof CatalogResultSchema>;
type LocaleFields = StoredContent['document']['locales'][string];

export interface PublishedProduct {
  productId: string;
  title: string;
  slug: string | null;
  /** The content's locale shown; null when the product has no content. */
  locale: string | null;
  /** Markdown when the product has content (`locale` set), else the catalog's plain text. */
  description: string | null;
  brand: string | null;
  category: string | null;
  condition: string | null;
  gtin: string | null;
  mpn: string | null;
  /** Images and videos in `position` order. */
  media: { type: 'image' | 'video'; url: string; alt: string }[];
  attributes: LocaleFields['attributes'];
  type: CatalogResultApi['type'];
  currency: string;
  listPriceCents: number;
  priceCents: number;
  availability: CatalogHit['availability'];
  available: number | null;
  score: number;
}

/** Who reads: the locales wanted, best first, and the tenant's default. */
export interface Reader {
  wanted: string[];
  defaultLocale: string;
}

/** The reader of a request: `locale` when given, else its Accept-Language; the tenant's default locale. */
export async function readerOf(
  db: Queryable,
  tenantId: string,
  input: { locale?: string | undefined; acceptLanguage?: string | undefined },
): Promise<Reader> {
  const tenant = await getTenant(db, tenantId);
  return {
    wanted: input.locale ? [input.locale] : acceptedLocales(input.acceptLanguage),
    defaultLocale: tenant?.defaultLocale ?? 'en',
  };
}

const EXCERPT_LENGTH = 300;

interface ProductFacts {
  name: string;
  description: string | null;
  type: CatalogResultApi['type'];
  currency: string;
}

function present(
  hit: CatalogHit,
  content: StoredContent | undefined,
  reader: Reader,
  product: ProductFacts,
  price: { listPriceCents: number; priceCents: number },
): PublishedProduct {
  const locale = content
    ? chooseLocale(Object.keys(content.document.locales), reader.wanted, reader.defaultLocale)
    : undefined;
  const fields = locale === undefined ? undefined : content?.document.locales[locale];
  return {
    productId: hit.productId,
    title: fields?.title ?? product.name,
    slug: content?.document.slug ?? null,
    locale: locale ?? null,
    description: fields ? fields.description : product.description,
    brand: fields?.brand ?? null,
    category: fields?.category ?? null,
    condition: fields?.condition ?? null,
    gtin: fields?.gtin ?? null,
    mpn: fields?.mpn ?? null,
    media: [...(fields?.media ?? [])]
      .sort((a, b) => a.position - b.position)
      .map((m) => ({ type: m.type, url: m.url, alt: m.alt })),
    attributes: fields?.attributes ?? [],
    type: product.type,
    currency: product.currency,
    ...price,
    availability: hit.availability,
    available: hit.available,
    score: hit.score,
  };
}

/**
 * The found products presented for `reader`, in the order found: their products, prices and
 * content read together (one round trip), each priced for one unit (rules and offers, no customer).
 */
export async function presentHits(
  db: Queryable,
  tenantId: string,
  hits: readonly CatalogHit[],
  reader: Reader,
  now: Date,
): Promise<PublishedProduct[]> {
  if (hits.length === 0) return [];
  const ids = hits.map((h) => h.productId);
  const [pricing, contents] = await readTogether(db, [
    pricingDataRead(tenantId, ids),
    contentsOfProductsRead(tenantId, ids),
  ]);
  const products = new Map(pricing.products.map((p) => [p.id, p]));
  const context = { locale: reader.wanted[0] ?? reader.defaultLocale };
  const { rules, offers } = pricing;
  return hits.flatMap((hit) => {
    const product = products.get(hit.productId);
    if (!product) return [];
    const price = resolvePrice({ product, quantity: 1, context, rules, offers, now });
    const prices = { listPriceCents: price.basePriceCents, priceCents: price.totalCents };
    return [present(hit, contents.get(hit.productId), reader, product, prices)];
  });
}

/** A search result of GET /catalog/search: the description's start and the first image. */
export function searchResultOf(p: PublishedProduct): CatalogResultApi {
  const image = p.media.find((m) => m.type === 'image');
  return {
    productId: p.productId,
    title: p.title,
    slug: p.slug,
    locale: p.locale,
    excerpt: p.description === null ? null : p.description.slice(0, EXCERPT_LENGTH),
    brand: p.brand,
    category: p.category,
    condition: p.condition,
    image: image ? { url: image.url, alt: image.alt } : null,
    type: p.type,
    currency: p.currency,
    listPriceCents: p.listPriceCents,
    priceCents: p.priceCents,
    availability: p.availability,
    available: p.available,
    score: p.score,
  };
}
