import { Type } from 'typebox';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { listEnvelope } from '../../../http/paging.js';
import { cartHeader } from '../../carts/index.js';
import { buyActions, type NamedCart } from '../../catalog/index.js';
import {
  CatalogFacetsSchema,
  CatalogResultSchema,
  CatalogSearchQuery,
  SearchHeaders,
  SearchMeta,
} from '../schemas.js';
import { type CatalogSearchPage, searchPublishedCatalog } from '../service.js';
import { catalogSearchExample } from './examples.js';

const SearchResponse = Type.Object(
  {
    ...Envelope(Type.Array(CatalogResultSchema), 'Matches, best first.').properties,
    facets: CatalogFacetsSchema,
    meta: SearchMeta,
  },
  {
    description: 'A page of matches, facets over all of them, and where the next page starts.',
    examples: [catalogSearchExample],
  },
);

/**
 * Each result: add it to the caller's cart when one is named (and takes it), else start a cart with
 * it or order it at once (one unit); then its content.
 */
const resultActions = (page: CatalogSearchPage, cart: NamedCart | undefined) => [
  ...(cart?.active || page.results.length > 0 ? [] : [next('createCart', 'createCart')]),
  ...page.results.flatMap((r) => buyActions({ id: r.productId, currency: r.currency }, cart)),
  ...(cart?.active
    ? []
    : page.results.map((r) =>
        next('createOrder', 'createOrder', {
          items: [{ productId: r.productId, quantity: 1 }],
          currency: r.currency,
        }),
      )),
  ...page.results.map((r) => next('productContent', 'getProductContent', { id: r.productId })),
];

export const searchCatalogRoute = defineRoute({
  method: 'GET',
  path: '/catalog/search',
  operationId: 'searchCatalog',
  summary: 'Search the catalog',
  description:
    'Find products to offer a buyer: relevance over titles, descriptions, brands, categories and attributes in ' +
    'the reader’s language (typos in titles tolerated), filters, facets, each result with its price for one unit ' +
    'and availability.',
  tags: ['Catalog'],
  scope: 'read',
  query: CatalogSearchQuery,
  headers: SearchHeaders,
  responses: { 200: SearchResponse, ...errorResponses(400) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const input = { ...request.query, acceptLanguage: request.headers['accept-language'] };
    const page = await searchPublishedCatalog(deps.db, ctx.tenantId, deps.keyRing, input, deps.clock.now());
    const list = { items: page.results, limit: page.limit, nextCursor: page.nextCursor };
    const { cartId } = request.query;
    const cart = cartId ? await cartHeader(deps.db, ctx.tenantId, cartId) : undefined;
    const body = listEnvelope(ctx, request, list, resultActions(page, cart));
    return {
      ...body,
      facets: page.facets,
      meta: { limit: page.limit, nextCursor: page.nextCursor, total: page.total },
    };
  },
});
