import type { PublishedProduct } from '../../storefront/index.js';
import type { UcpMessage } from '../ucp/messages.js';

// A published product in UCP's words (types/product.json, variant.json): one product, one variant
// whose id is the product id (what a checkout's `line_items[].item.id` takes), prices in minor
// units, and the messages UCP's catalog answers carry about them.

/** What every product of one answer shares: who sells it. */
export interface SellerFacts {
  name: string;
  links: { type: string; url: string; title: string }[];
}

const descriptionOf = (p: PublishedProduct) =>
  p.locale === null ? { plain: p.description ?? '' } : { markdown: p.description ?? '' };

const price = (amount: number, currency: string) => ({ amount, currency });

/** Facts with no field of their own in UCP's product, for the agent to read. */
function metadataOf(p: PublishedProduct): Record<string, unknown> {
  return {
    product_type: p.type,
    ...(p.locale !== null ? { language: p.locale } : {}),
    ...(p.brand !== null ? { brand: p.brand } : {}),
    ...(p.condition !== null ? { condition: p.condition } : {}),
    ...(p.mpn !== null ? { mpn: p.mpn } : {}),
    ...(p.attributes.length > 0
      ? { attributes: Object.fromEntries(p.attributes.map((a) => [a.key, a.value])) }
      : {}),
  };
}

/** The product's one variant: the product itself, priced for one unit. */
export function ucpVariant(p: PublishedProduct, seller: SellerFacts) {
  const discounted = p.listPriceCents > p.priceCents;
  return {
    id: p.productId,
    title: p.title,
    description: descriptionOf(p),
    price: price(p.priceCents, p.currency),
    ...(discounted ? { list_price: price(p.listPriceCents, p.currency) } : {}),
    availability: { available: p.availability !== 'out_of_stock', status: p.availability },
    ...(p.gtin !== null ? { barcodes: [{ type: 'GTIN', value: p.gtin }] } : {}),
    seller,
  };
}

export type UcpVariant = ReturnType<typeof ucpVariant>;

/** The product, with `variant` (its one variant, as the answer needs it). */
export function ucpProduct<V extends UcpVariant>(p: PublishedProduct, variant: V) {
  const one = price(p.priceCents, p.currency);
  const list = price(p.listPriceCents, p.currency);
  return {
    id: p.productId,
    ...(p.slug !== null ? { handle: p.slug } : {}),
    title: p.title,
    description: descriptionOf(p),
    ...(p.category !== null ? { categories: [{ value: p.category, taxonomy: 'merchant' }] } : {}),
    price_range: { min: one, max: one },
    ...(p.listPriceCents > p.priceCents ? { list_price_range: { min: list, max: list } } : {}),
    ...(p.media.length > 0
      ? {
          media: p.media.map((m) => ({ type: m.type, url: m.url, ...(m.alt ? { alt_text: m.alt } : {}) })),
        }
      : {}),
    variants: [variant],
    metadata: metadataOf(p),
  };
}

const DELAYED: Partial<Record<PublishedProduct['availability'], string>> = {
  backorder: 'On backorder: it can be ordered now and ships once restocked.',
  preorder: 'On preorder: it can be ordered now and ships once released.',
};

/**
 * The messages about the products of an answer, each at its JSONPath (`at(i)`): a product that
 * sells but ships later (backorder, preorder) is a `delayed_fulfillment` warning, as
 * catalog/index.md ("Backorder Warning") shows; a price filter we could not apply to a product
 * priced in another currency is said so (we do not convert).
 */
export function productMessages(
  products: readonly PublishedProduct[],
  at: (index: number) => string,
  priceFilterCurrency: string | undefined,
): UcpMessage[] {
  return products.flatMap((p, i): UcpMessage[] => {
    const delayed = DELAYED[p.availability];
    const unfiltered = priceFilterCurrency !== undefined && p.currency !== priceFilterCurrency;
    return [
      ...(delayed
        ? [
            {
              type: 'warning' as const,
              code: 'delayed_fulfillment',
              path: `${at(i)}.variants[0]`,
              content: delayed,
            },
          ]
        : []),
      ...(unfiltered
        ? [
            {
              type: 'info' as const,
              code: 'price_filter_not_applied',
              path: at(i),
              content: `Priced in ${p.currency}, not ${priceFilterCurrency}: the price filter was not applied to it (prices are not converted).`,
            },
          ]
        : []),
    ];
  });
}
