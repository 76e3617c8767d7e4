import { defineRoute } from '../../../../http/declared-route.js';
import { respond } from '../../../../http/operation.js';
import { cancelCheckout } from '../../index.js';
import { assertSessionId } from '../binding.js';
import { UCP_REST_PATH } from '../protocol.js';
import { CheckoutParams, CheckoutResponse } from '../schemas/checkout.js';
import { Answer } from '../schemas/common.js';
import { checkoutExample } from '../schemas/examples.js';
import { checkoutCall } from './call.js';
import { ucpEdge } from './edge.js';
import { CALL_ERRORS, errorAnswers, NEGOTIATION, TAGS } from './responses.js';

export const cancelUcpCheckout = defineRoute({
  method: 'POST',
  path: '/checkout-sessions/:id/cancel',
  prefix: UCP_REST_PATH,
  protocol: ucpEdge,
  public: false,
  operationId: 'ucpCancelCheckout',
  summary: 'UCP: cancel a checkout session',
  description:
    'Cancels an open checkout: `canceled`. 404 `not_found`; 409 `checkout_session_closed` once it is ' +
    'completed or canceled. A body is not needed. ' +
    NEGOTIATION +
    'Send an Idempotency-Key to retry safely.',
  tags: TAGS,
  scope: 'commerce',
  params: CheckoutParams,
  responses: {
    200: Answer(CheckoutResponse, 'The canceled checkout.', {
      ...checkoutExample,
      status: 'canceled',
      messages: [],
    }),
    ...errorAnswers(...CALL_ERRORS, 404, 409),
  },
  handler: async (request, reply, deps) => {
    const call = await checkoutCall(deps, request, reply);
    if (!call) return reply;
    const { id } = request.params;
    assertSessionId(id);
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => cancelCheckout(deps, ctx, { id }, key),
      call.answer(200),
    );
  },
});
