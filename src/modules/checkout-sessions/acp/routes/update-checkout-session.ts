import { defineRoute } from '../../../../http/declared-route.js';
import { respond } from '../../../../http/operation.js';
import { getCheckout, updateCheckout } from '../../index.js';
import { needsCurrentBuyer, updateChange } from '../request-mapping.js';
import { AcpHeaders, SessionParams, UpdateSessionRequest } from '../request-schemas.js';
import { ACP_WRITE_ERRORS, acpErrorResponses } from '../schema-parts.js';
import { AcpSessionSchema } from '../session-schemas.js';
import { ACP_EDGE, acpView, HOW_TO_CALL, sessionAnswer, TAGS } from './shared.js';

export const updateCheckoutSessionRoute = defineRoute({
  method: 'POST',
  path: '/checkout_sessions/:id',
  protocol: ACP_EDGE,
  public: false,
  operationId: 'acpUpdateCheckoutSession',
  summary: 'ACP: update a checkout session',
  description:
    `${HOW_TO_CALL} Changes what the request holds and leaves the rest: \`line_items\` (replaces ` +
    'the items), `buyer`, `fulfillment_details` (null clears the address), ' +
    '`selected_fulfillment_options` (one option id from `fulfillment_options`), `discounts.codes` ' +
    '(replaces the codes; [] clears them). 200 with the whole session; its `messages[]` say what ' +
    'is still missing. 409 checkout_session_closed once it is completed or canceled; 404 not_found.',
  tags: TAGS,
  scope: 'commerce',
  headers: AcpHeaders,
  params: SessionParams,
  body: UpdateSessionRequest,
  responses: { 200: AcpSessionSchema, ...acpErrorResponses(...ACP_WRITE_ERRORS) },
  handler: async (request, reply, deps) => {
    const view = await acpView(deps, request);
    const { id } = request.params;
    return respond(
      deps,
      request,
      reply,
      async (ctx, key) => {
        // Contact fields merge into the buyer the session has: read it only when they do.
        const before = needsCurrentBuyer(request.body) ? await getCheckout(deps, ctx, id) : null;
        return updateCheckout(deps, ctx, { id, change: updateChange(request.body, before) }, key);
      },
      sessionAnswer(200, view),
    );
  },
});
