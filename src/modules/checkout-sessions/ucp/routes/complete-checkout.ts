import { defineRoute } from '../../../../http/declared-route.js';
import { respond } from '../../../../http/operation.js';
import { assertSessionId, completeForPlatform, publicBase } from '../binding.js';
import { UCP_REST_PATH } from '../protocol.js';
import { CheckoutCompleteBody, CheckoutParams, CheckoutResponse } from '../schemas/checkout.js';
import { Answer } from '../schemas/common.js';
import { completedExample } from '../schemas/examples.js';
import { buyerOf, paymentOf } from '../to-change.js';
import { checkoutCall } from './call.js';
import { ucpEdge } from './edge.js';
import { CALL_ERRORS, errorAnswers, NEGOTIATION, TAGS } from './responses.js';

export const completeUcpCheckout = defineRoute({
  method: 'POST',
  path: '/checkout-sessions/:id/complete',
  prefix: UCP_REST_PATH,
  protocol: ucpEdge,
  public: false,
  operationId: 'ucpCompleteCheckout',
  summary: 'UCP: complete a checkout session (pay and place the order)',
  description:
    'Pays with the instrument sent (`handler_id` an advertised handler: `sandbox_card`; its ' +
    '`credential.token` success_token, fail_token or escalate_token) and places the order: `completed` ' +
    'with `order`. A declined payment answers the checkout with a `payment_failed` message and no ' +
    'order; escalate_token answers `requires_escalation` with `continue_url` for the buyer. A checkout ' +
    'not ready answers as it stands, its messages saying what is missing. The token is never echoed. ' +
    '404 `not_found`; 409 `checkout_session_closed`. ' +
    NEGOTIATION +
    'Send an Idempotency-Key to retry safely.',
  tags: TAGS,
  scope: 'commerce',
  params: CheckoutParams,
  body: CheckoutCompleteBody,
  responses: {
    200: Answer(CheckoutResponse, 'The checkout, with `order` once placed.', completedExample),
    ...errorAnswers(...CALL_ERRORS, 404, 409),
  },
  handler: async (request, reply, deps) => {
    const call = await checkoutCall(deps, request, reply);
    if (!call) return reply;
    const { id } = request.params;
    assertSessionId(id);
    const payment = paymentOf(request.body);
    const buyer = request.body.buyer ? buyerOf(request.body.buyer) : undefined;
    const input = { id, payment, buyer, baseUrl: publicBase(deps) };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => completeForPlatform(deps, ctx, input, key),
      call.answer(200),
    );
  },
});
