import { defineRoute } from '../../../../http/declared-route.js';
import { respond } from '../../../../http/operation.js';
import { createCheckout } from '../../index.js';
import { createInput } from '../request-mapping.js';
import { AcpHeaders, CreateSessionRequest } from '../request-schemas.js';
import { ACP_WRITE_ERRORS, acpErrorResponses } from '../schema-parts.js';
import { AcpSessionSchema } from '../session-schemas.js';
import { ACP_EDGE, acpView, HOW_TO_CALL, sessionAnswer, TAGS } from './shared.js';

export const createCheckoutSessionRoute = defineRoute({
  method: 'POST',
  path: '/checkout_sessions',
  protocol: ACP_EDGE,
  public: false,
  operationId: 'acpCreateCheckoutSession',
  summary: 'ACP: create a checkout session',
  description:
    `${HOW_TO_CALL} Starts a session from \`line_items\` (product ids of our catalog, quantity ` +
    'default 1) and optionally the buyer, `fulfillment_details` and `discounts.codes`; 201 with the ' +
    'priced session. What keeps it from being paid (an unknown product, a zero quantity, no ' +
    'address, no fulfillment option chosen) is in `messages[]` with a JSONPath `param`, and the ' +
    'status is `not_ready_for_payment` until it is fixed with POST /checkout_sessions/{id}.',
  tags: TAGS,
  scope: 'commerce',
  headers: AcpHeaders,
  body: CreateSessionRequest,
  responses: { 201: AcpSessionSchema, ...acpErrorResponses(...ACP_WRITE_ERRORS) },
  handler: async (request, reply, deps) => {
    const view = await acpView(deps, request);
    const input = createInput(request.body);
    const agent = request.body.capabilities?.interventions?.supported;
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => createCheckout(deps, ctx, input, key),
      sessionAnswer(201, view, agent),
    );
  },
});
