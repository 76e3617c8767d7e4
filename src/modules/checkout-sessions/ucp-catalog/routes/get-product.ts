import { defineRoute } from '../../../../http/declared-route.js';
import { lookupPublishedProducts } from '../../../storefront/index.js';
import { CAPABILITY, UCP_REST_PATH } from '../../ucp/protocol.js';
import { sendAsIs, ucpEdge } from '../../ucp/routes/edge.js';
import { CALL_ERRORS, errorAnswers, TAGS } from '../../ucp/routes/responses.js';
import { Answer } from '../../ucp/schemas/common.js';
import { productAnswer, productNotFound } from '../answers.js';
import { productExample } from '../examples.js';
import { lookupInputOf } from '../inputs.js';
import { GetProductRequest } from '../request-schemas.js';
import { GetProductResponse } from '../schemas.js';
import { acceptLanguageOf, CATALOG_NEGOTIATION, catalogCall } from './call.js';

export const getUcpProduct = defineRoute({
  method: 'POST',
  path: '/catalog/product',
  prefix: UCP_REST_PATH,
  protocol: ucpEdge,
  public: false,
  operationId: 'ucpGetProduct',
  summary: 'UCP: a product in full',
  description:
    'One published product by `id` (its id, which is also its one variant’s, or its handle) with everything we ' +
    'know of it: the whole description (Markdown), every image and video, categories, barcodes (GTIN), brand, ' +
    'condition and attributes (in `metadata`), the price of one unit and the list price, availability and the ' +
    'seller. Our products have no options: `selected` and `preferences` are accepted and not used. An id that ' +
    'names no published product of this business answers 200 with `ucp.status: "error"` and an unrecoverable ' +
    '`not_found`. ' +
    CATALOG_NEGOTIATION +
    'Without `dev.ucp.shopping.catalog.lookup` in common: 200 `capabilities_incompatible`.',
  tags: TAGS,
  scope: 'read',
  body: GetProductRequest,
  responses: {
    200: Answer(GetProductResponse, 'The product.', productExample),
    ...errorAnswers(...CALL_ERRORS),
  },
  handler: async (request, reply, deps) => {
    const reading = lookupInputOf(request.body, acceptLanguageOf(request));
    const call = await catalogCall(deps, request, reply, CAPABILITY.catalogLookup);
    if (!call) return reply;
    const { id } = request.body;
    const [found] = await lookupPublishedProducts(
      deps.db,
      call.ctx.tenantId,
      [id],
      reading.input,
      deps.clock.now(),
    );
    if (!found) return sendAsIs(reply, 200, productNotFound(call, id));
    return reply.send(productAnswer(call, reading, found));
  },
});
