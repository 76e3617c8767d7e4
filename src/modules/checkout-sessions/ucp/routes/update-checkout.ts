import { defineRoute } from '../../../../http/declared-route.js';
import { respond } from '../../../../http/operation.js';
import { getCheckout, updateCheckout } from '../../index.js';
import { assertSessionId } from '../binding.js';
import { UCP_REST_PATH } from '../protocol.js';
import { CheckoutParams, CheckoutResponse, CheckoutUpdateBody } from '../schemas/checkout.js';
import { Answer } from '../schemas/common.js';
import { checkoutExample } from '../schemas/examples.js';
import { changeOf } from '../to-change.js';
import { checkoutCall } from './call.js';
import { ucpEdge } from './edge.js';
import { CALL_ERRORS, errorAnswers, NEGOTIATION, TAGS } from './responses.js';

export const updateUcpCheckout = defineRoute({
  method: 'PUT',
  path: '/checkout-sessions/:id',
  prefix: UCP_REST_PATH,
  protocol: ucpEdge,
  public: false,
  operationId: 'ucpUpdateCheckout',
  summary: 'UCP: update a checkout session (full replacement)',
  description:
    'Replaces the checkout with the one sent: `line_items`, `buyer`, `fulfillment` (the shipping ' +
    'method’s destination is the address, a group’s `selected_option_id` the option; a method sent ' +
    'without destinations keeps the address) and `discounts.codes`; what is left out is cleared. ' +
    '404 `not_found`; 409 `checkout_session_closed` once completed or canceled. ' +
    NEGOTIATION +
    'Send an Idempotency-Key to retry safely.',
  tags: TAGS,
  scope: 'commerce',
  params: CheckoutParams,
  body: CheckoutUpdateBody,
  responses: {
    200: Answer(CheckoutResponse, 'The checkout session after the change.', checkoutExample),
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
      async (ctx, key) => {
        const current = await getCheckout(deps, ctx, id);
        const change = changeOf(request.body, call.active, current.address);
        return updateCheckout(deps, ctx, { id, change, replace: true }, key);
      },
      call.answer(200),
    );
  },
});
