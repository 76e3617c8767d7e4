import type { PublishedPage, PublishedProduct } from '../../storefront/index.js';
import type { UcpMessage } from '../ucp/messages.js';
import type { CatalogReading } from './inputs.js';
import { productMessages, type SellerFacts, ucpProduct, ucpVariant } from './present.js';

// The three catalog answers (search_response, lookup_response, get_product_response) and
// get_product's not found, from what our search found.

/** What every answer of one call shares: its `ucp` block and the seller. */
export interface CatalogAnswerContext {
  ucp: { version: string; status: 'success'; capabilities: Record<string, { version: string }[]> };
  seller: SellerFacts;
}

const withMessages = (messages: UcpMessage[]) => (messages.length > 0 ? { messages } : {});

const productAt = (i: number) => `$.products[${i}]`;

/** search_catalog: a page of products, where the next one starts, how many match. */
export function searchAnswer(
  call: CatalogAnswerContext,
  reading: CatalogReading<unknown>,
  page: PublishedPage,
) {
  const products = page.products.map((p) => ucpProduct(p, ucpVariant(p, call.seller)));
  return {
    ucp: call.ucp,
    products,
    pagination: {
      ...(page.nextCursor !== null ? { cursor: page.nextCursor } : {}),
      has_next_page: page.nextCursor !== null,
      total_count: page.total,
    },
    ...withMessages([
      ...reading.messages,
      ...productMessages(page.products, productAt, reading.priceFilterCurrency),
    ]),
  };
}

/** How a request identifier resolved to a product: its id (the variant's own) or its handle. */
function inputsOf(product: PublishedProduct, identifiers: readonly string[]) {
  return identifiers.flatMap((id) => {
    if (id.toLowerCase() === product.productId) return [{ id, match: 'exact' }];
    return id === product.slug ? [{ id, match: 'featured' }] : [];
  });
}

/**
 * lookup_catalog: each product found once, in the order of the first identifier that names it,
 * its variant with the identifiers that resolved to it (lookup.md, "Client Correlation"); an
 * identifier that names nothing is an info `not_found` message with the identifier as its content,
 * as UCP's examples show.
 */
export function lookupAnswer(
  call: CatalogAnswerContext,
  reading: CatalogReading<unknown>,
  requested: readonly string[],
  found: readonly PublishedProduct[],
) {
  const identifiers = [...new Set(requested)];
  const first = (inputs: { id: string }[]) => Math.min(...inputs.map((i) => identifiers.indexOf(i.id)));
  const resolved = found
    .map((product) => ({ product, inputs: inputsOf(product, identifiers) }))
    .filter((r) => r.inputs.length > 0)
    .sort((a, b) => first(a.inputs) - first(b.inputs));
  const named = new Set(resolved.flatMap((r) => r.inputs.map((i) => i.id)));
  const notFound = identifiers
    .filter((id) => !named.has(id))
    .map((id): UcpMessage => ({ type: 'info', code: 'not_found', content: id }));
  const products = resolved.map(({ product, inputs }) =>
    ucpProduct(product, { ...ucpVariant(product, call.seller), inputs }),
  );
  const shown = resolved.map((r) => r.product);
  return {
    ucp: call.ucp,
    products,
    ...withMessages([
      ...reading.messages,
      ...productMessages(shown, productAt, reading.priceFilterCurrency),
      ...notFound,
    ]),
  };
}

/** get_product: the product in full. */
export function productAnswer(
  call: CatalogAnswerContext,
  reading: CatalogReading<unknown>,
  found: PublishedProduct,
) {
  return {
    ucp: call.ucp,
    product: ucpProduct(found, ucpVariant(found, call.seller)),
    ...withMessages([
      ...reading.messages,
      ...productMessages([found], () => '$.product', reading.priceFilterCurrency),
    ]),
  };
}

/**
 * get_product of an identifier that names no product of ours: 200 with `ucp.status: "error"` and
 * an unrecoverable `not_found` (catalog/rest.md, "Product Not Found"): an outcome, not a failure.
 */
export function productNotFound(call: CatalogAnswerContext, id: string) {
  return {
    ucp: { ...call.ucp, status: 'error' as const },
    messages: [
      {
        type: 'error' as const,
        code: 'not_found',
        content: `Product not found: ${id}`,
        severity: 'unrecoverable' as const,
      },
    ],
  };
}
