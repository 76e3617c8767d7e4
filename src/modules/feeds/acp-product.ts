import type { PriceResolution, ProductRow } from '../catalog/index.js';
import { chooseLocale, type LocaleFields, type StoredContent } from '../product-content/index.js';
import type { SellerProfile } from '../seller/index.js';
import { availabilityOf, type StockLevel } from '../stock/index.js';

// One product of the tenant as one line of an ACP product feed: a `Product` of the protocol's
// feed schema (agentic-commerce-protocol, spec/2026-04-17/json-schema/schema.feed.json), with one
// `Variant` whose id is the product's (what an ACP checkout's `line_items[].id` takes). The
// schema's objects are closed: nothing is added that it does not name.

export interface AcpPrice {
  /** Minor units of `currency` (ISO 4217). */
  amount: number;
  currency: string;
}

export interface AcpLink {
  type: string;
  title: string;
  url: string;
}

export interface AcpSeller {
  name: string;
  links?: AcpLink[];
}

export interface AcpAvailability {
  available: boolean;
  status: 'in_stock' | 'limited_stock' | 'backorder' | 'preorder' | 'out_of_stock';
}

export interface AcpMedia {
  type: string;
  url: string;
  alt_text?: string;
}

export type AcpDescription = { plain: string } | { markdown: string };

export interface AcpVariant {
  id: string;
  title: string;
  description?: AcpDescription;
  price?: AcpPrice;
  list_price?: AcpPrice;
  availability: AcpAvailability;
  barcodes?: { type: 'GTIN'; value: string }[];
  categories?: { value: string }[];
  condition?: string[];
  seller: AcpSeller;
}

export interface AcpProduct {
  id: string;
  title: string;
  description?: AcpDescription;
  url?: string;
  media?: AcpMedia[];
  variants: [AcpVariant];
}

/** What the whole feed shares: the seller, the locale it is written in, where links point. */
export interface FeedContext {
  /** The tenant's default locale: the content's locale is chosen by it (then `en`, then the first). */
  defaultLocale: string;
  /** Our public base URL, without a trailing slash. */
  base: string;
  seller: AcpSeller;
}

/** One product as the feed reads it: the row, its price for one unit, its content and stock. */
export interface FeedItem {
  product: ProductRow;
  price: PriceResolution;
  content: StoredContent | undefined;
  stock: StockLevel | undefined;
}

const LINKS: [keyof SellerProfile, string, string][] = [
  ['termsOfUseUrl', 'terms_of_service', 'Terms of use'],
  ['privacyPolicyUrl', 'privacy_policy', 'Privacy policy'],
  ['returnPolicyUrl', 'refund_policy', 'Return policy'],
  ['supportUrl', 'support', 'Support'],
];

/** The seller as every variant names it: its display name and the policy pages it set. */
export function acpSeller(profile: SellerProfile): AcpSeller {
  const links = LINKS.flatMap(([field, type, title]) => {
    const url = profile[field];
    return typeof url === 'string' && URL.canParse(url) ? [{ type, title, url }] : [];
  });
  return { name: profile.displayName, ...(links.length > 0 ? { links } : {}) };
}

/**
 * The stock as ACP's availability: untracked is in stock; preorder and backorder sell beyond what
 * is on hand (available); a tracked product at or below its low-stock threshold is
 * `limited_stock`, with nothing available `out_of_stock`.
 */
export function acpAvailability(stock: StockLevel | undefined): AcpAvailability {
  const status = availabilityOf(stock ?? null);
  if (status === 'out_of_stock') return { available: false, status };
  if (
    status === 'in_stock' &&
    stock?.tracked &&
    stock.lowThreshold !== null &&
    stock.onHand - stock.reserved <= stock.lowThreshold
  )
    return { available: true, status: 'limited_stock' };
  return { available: true, status };
}

/**
 * What one unit costs a buyer with no segment, partner or locale: `price` after the offers open to
 * everyone, `list_price` before them when they take something off. None when a charge is priced by
 * the billing system's live quote (passthrough): the feed cannot know it.
 */
export function acpPrices(resolution: PriceResolution): { price?: AcpPrice; list_price?: AcpPrice } {
  if (resolution.requiresQuote) return {};
  const currency = resolution.currency.toUpperCase();
  const price = { amount: Math.max(0, resolution.totalCents), currency };
  return resolution.basePriceCents > price.amount
    ? { price, list_price: { amount: resolution.basePriceCents, currency } }
    : { price };
}

/** The content's fields in the feed's locale, and that locale; none without content. */
function localeFields(
  content: StoredContent | undefined,
  feed: FeedContext,
): { locale: string; fields: LocaleFields } | undefined {
  if (!content) return undefined;
  const locale = chooseLocale(
    Object.keys(content.document.locales),
    [feed.defaultLocale, 'en'],
    feed.defaultLocale,
  );
  const fields = locale === undefined ? undefined : content.document.locales[locale];
  return locale === undefined || !fields ? undefined : { locale, fields };
}

function mediaOf(fields: LocaleFields): AcpMedia[] {
  return [...fields.media]
    .sort((a, b) => a.position - b.position)
    .map((m) => ({ type: m.type, url: m.url, ...(m.alt ? { alt_text: m.alt } : {}) }));
}

/** The product as one feed line's `Product` (published content over the product's own name). */
export function acpProduct(item: FeedItem, feed: FeedContext): AcpProduct {
  const { product } = item;
  const chosen = localeFields(item.content, feed);
  const fields = chosen?.fields;
  const title = fields?.title ?? product.name;
  const description: AcpDescription | undefined = fields?.description
    ? { markdown: fields.description }
    : product.description
      ? { plain: product.description }
      : undefined;
  const media = fields ? mediaOf(fields) : [];
  const variant: AcpVariant = {
    id: product.id,
    title,
    ...acpPrices(item.price),
    availability: acpAvailability(item.stock),
    ...(fields?.gtin ? { barcodes: [{ type: 'GTIN' as const, value: fields.gtin }] } : {}),
    ...(fields?.category ? { categories: [{ value: fields.category }] } : {}),
    ...(fields?.condition ? { condition: [fields.condition] } : {}),
    seller: feed.seller,
  };
  return {
    id: product.id,
    title,
    ...(description ? { description } : {}),
    ...(chosen ? { url: productUrl(feed.base, product.id, chosen.locale) } : {}),
    ...(media.length > 0 ? { media } : {}),
    variants: [variant],
  };
}

/**
 * A product's page: its content in the feed's locale, read from this API (there is no storefront;
 * reading it takes a key of the tenant, as an order's `permalink_url` does).
 */
export function productUrl(base: string, productId: string, locale: string): string {
  return `${base}/api/v1/products/${encodeURIComponent(productId)}/content?locale=${encodeURIComponent(locale)}`;
}
