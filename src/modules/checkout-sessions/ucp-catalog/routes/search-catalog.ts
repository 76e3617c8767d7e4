import { defineRoute } from '../../../../http/declared-route.js';
import { searchPublishedProducts } from '../../../storefront/index.js';
import { CAPABILITY, UCP_REST_PATH } from '../../ucp/protocol.js';
import { ucpEdge } from '../../ucp/routes/edge.js';
import { CALL_ERRORS, errorAnswers, TAGS } from '../../ucp/routes/responses.js';
import { Answer } from '../../ucp/schemas/common.js';
import { searchAnswer } from '../answers.js';
import { searchExample } from '../examples.js';
import { searchInputOf, withPaginationErrors } from '../inputs.js';
import { SearchRequest } from '../request-schemas.js';
import { SearchResponse } from '../schemas.js';
import { acceptLanguageOf, CATALOG_NEGOTIATION, catalogCall } from './call.js';

export const searchUcpCatalog = defineRoute({
  method: 'POST',
  path: '/catalog/search',
  prefix: UCP_REST_PATH,
  protocol: ucpEdge,
  public: false,
  operationId: 'ucpSearchCatalog',
  summary: 'UCP: search the catalog',
  description:
    'Finds published products to offer a buyer: `query` (relevance over titles, descriptions, brands, ' +
    'categories and attributes in the reader’s language, typos in titles tolerated) and/or `filters` ' +
    '(`categories`: any of, a path prefix matches; `price`: list price of one unit, `min`/`max` in minor units). ' +
    'One of them is required (else 400 `missing` at `$.query`). Each product has one variant whose `id` is the ' +
    'product id: put it in a checkout’s `line_items[].item.id`. `context.language` (else Accept-Language) ' +
    'chooses the content’s language; other context is accepted and not used. `pagination.limit` defaults to ' +
    '10 (at most 50); send `pagination.cursor` back with the same query and filters for the next page. ' +
    CATALOG_NEGOTIATION +
    'Without `dev.ucp.shopping.catalog.search` in common: 200 `capabilities_incompatible`.',
  tags: TAGS,
  scope: 'read',
  body: SearchRequest,
  responses: {
    200: Answer(SearchResponse, 'A page of products, best first.', searchExample),
    ...errorAnswers(...CALL_ERRORS),
  },
  handler: async (request, reply, deps) => {
    const reading = searchInputOf(request.body, acceptLanguageOf(request));
    const call = await catalogCall(deps, request, reply, CAPABILITY.catalogSearch);
    if (!call) return reply;
    const page = await withPaginationErrors(() =>
      searchPublishedProducts(deps.db, call.ctx.tenantId, deps.keyRing, reading.input, deps.clock.now()),
    );
    return reply.send(searchAnswer(call, reading, page));
  },
});
