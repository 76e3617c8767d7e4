import { defineRoute } from '../../../../http/declared-route.js';
import { respond } from '../../../../http/operation.js';
import { cancelCheckout } from '../../index.js';
import { AcpHeaders, CancelSessionRequest, SessionParams } from '../request-schemas.js';
import { ACP_WRITE_ERRORS, acpErrorResponses } from '../schema-parts.js';
import { AcpSessionSchema } from '../session-schemas.js';
import { ACP_CANCEL_EDGE, acpView, HOW_TO_CALL, sessionAnswer, TAGS } from './shared.js';

export const cancelCheckoutSessionRoute = defineRoute({
  method: 'POST',
  path: '/checkout_sessions/:id/cancel',
  protocol: ACP_CANCEL_EDGE,
  public: false,
  operationId: 'acpCancelCheckoutSession',
  summary: 'ACP: cancel a checkout session',
  description:
    `${HOW_TO_CALL} Cancels an open session; the body (\`intent_trace\`) is optional and not kept. ` +
    '200 with `status: canceled`; 405 checkout_session_closed once it is completed or canceled.',
  tags: TAGS,
  scope: 'commerce',
  headers: AcpHeaders,
  params: SessionParams,
  body: CancelSessionRequest,
  responses: { 200: AcpSessionSchema, ...acpErrorResponses(...ACP_WRITE_ERRORS, 405) },
  handler: async (request, reply, deps) => {
    const view = await acpView(deps, request);
    const { id } = request.params;
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => cancelCheckout(deps, ctx, { id }, key),
      sessionAnswer(200, view),
    );
  },
});
