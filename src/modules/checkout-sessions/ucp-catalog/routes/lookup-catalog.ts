import { defineRoute } from '../../../../http/declared-route.js';
import { lookupPublishedProducts } from '../../../storefront/index.js';
import { CAPABILITY, UCP_REST_PATH } from '../../ucp/protocol.js';
import { ucpEdge } from '../../ucp/routes/edge.js';
import { CALL_ERRORS, errorAnswers, TAGS } from '../../ucp/routes/responses.js';
import { Answer } from '../../ucp/schemas/common.js';
import { lookupAnswer } from '../answers.js';
import { lookupExample } from '../examples.js';
import { lookupInputOf } from '../inputs.js';
import { LOOKUP_IDS_MAX, LookupRequest } from '../request-schemas.js';
import { LookupResponse } from '../schemas.js';
import { acceptLanguageOf, CATALOG_NEGOTIATION, catalogCall } from './call.js';

export const lookupUcpCatalog = defineRoute({
  method: 'POST',
  path: '/catalog/lookup',
  prefix: UCP_REST_PATH,
  protocol: ucpEdge,
  public: false,
  operationId: 'ucpLookupCatalog',
  summary: 'UCP: look products up by id',
  description:
    `The published products that \`ids\` name (1 to ${LOOKUP_IDS_MAX}; more is 400 \`request_too_large\`): a product ` +
    'id (which is also its one variant’s id, `match: "exact"`) or a product handle (`match: "featured"`). Each ' +
    'product is answered once, its variant’s `inputs` saying which identifiers resolved to it. An identifier ' +
    'that names no published product of this business (unknown, a draft, inactive, filtered out) is not an ' +
    'error: it is an info message `not_found` whose `content` is the identifier. `filters` and ' +
    '`context.language` work as in search. ' +
    CATALOG_NEGOTIATION +
    'Without `dev.ucp.shopping.catalog.lookup` in common: 200 `capabilities_incompatible`.',
  tags: TAGS,
  scope: 'read',
  body: LookupRequest,
  responses: {
    200: Answer(LookupResponse, 'The products found, and what was not.', lookupExample),
    ...errorAnswers(...CALL_ERRORS),
  },
  handler: async (request, reply, deps) => {
    const reading = lookupInputOf(request.body, acceptLanguageOf(request));
    const call = await catalogCall(deps, request, reply, CAPABILITY.catalogLookup);
    if (!call) return reply;
    const { ids } = request.body;
    const found = await lookupPublishedProducts(
      deps.db,
      call.ctx.tenantId,
      ids,
      reading.input,
      deps.clock.now(),
    );
    return reply.send(lookupAnswer(call, reading, ids, found));
  },
});
