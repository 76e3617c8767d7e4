import { defineRoute } from '../../../../http/declared-route.js';
import { respond } from '../../../../http/operation.js';
import { completeCheckout } from '../../index.js';
import { completeInput } from '../request-mapping.js';
import { AcpHeaders, CompleteSessionRequest, SessionParams } from '../request-schemas.js';
import { ACP_WRITE_ERRORS, acpErrorResponses } from '../schema-parts.js';
import { AcpSessionSchema } from '../session-schemas.js';
import { ACP_EDGE, acpView, HOW_TO_CALL, sessionAnswer, TAGS } from './shared.js';

export const completeCheckoutSessionRoute = defineRoute({
  method: 'POST',
  path: '/checkout_sessions/:id/complete',
  protocol: ACP_EDGE,
  public: false,
  operationId: 'acpCompleteCheckoutSession',
  summary: 'ACP: complete a checkout session (pay and place the order)',
  description:
    `${HOW_TO_CALL} Pays with \`payment_data\`: handler \`acp_delegated_card\`, instrument ` +
    '`{ type: card, credential: { type: spt, token } }` where the token is the `id` POST ' +
    '/agentic_commerce/delegate_payment answered for this session. 200: `status: completed` and ' +
    '`order { id, checkout_session_id, permalink_url }`. Refused: 409 checkout_not_ready (the ' +
    'session’s messages say what is missing), 409 checkout_session_closed, 400 payment_token_invalid ' +
    '(unknown, used, expired, over its allowance or for another session; param ' +
    '`$.payment_data.instrument.credential.token`). A declined card answers the session with a ' +
    '`payment_declined` message and no order.',
  tags: TAGS,
  scope: 'commerce',
  headers: AcpHeaders,
  params: SessionParams,
  body: CompleteSessionRequest,
  responses: { 200: AcpSessionSchema, ...acpErrorResponses(...ACP_WRITE_ERRORS) },
  handler: async (request, reply, deps) => {
    const view = await acpView(deps, request);
    const input = completeInput(request.params.id, request.body, deps.config.publicBaseUrl);
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => completeCheckout(deps, ctx, input, key),
      sessionAnswer(200, view),
    );
  },
});
