import { defineRoute } from '../../../../http/declared-route.js';
import { getCheckout } from '../../index.js';
import { assertSessionId } from '../binding.js';
import { UCP_REST_PATH } from '../protocol.js';
import { CheckoutParams, CheckoutResponse } from '../schemas/checkout.js';
import { Answer } from '../schemas/common.js';
import { checkoutExample } from '../schemas/examples.js';
import { checkoutCall, sendCheckout } from './call.js';
import { ucpEdge } from './edge.js';
import { CALL_ERRORS, errorAnswers, NEGOTIATION, TAGS } from './responses.js';

export const getUcpCheckout = defineRoute({
  method: 'GET',
  path: '/checkout-sessions/:id',
  prefix: UCP_REST_PATH,
  protocol: ucpEdge,
  public: false,
  operationId: 'ucpGetCheckout',
  summary: 'UCP: get a checkout session',
  description:
    'The checkout as it stands (also once completed or canceled). 404 `not_found` for an id that is not ' +
    'a checkout session of the key’s tenant. ' +
    NEGOTIATION,
  tags: TAGS,
  scope: 'read',
  params: CheckoutParams,
  responses: {
    200: Answer(CheckoutResponse, 'The checkout session.', checkoutExample),
    ...errorAnswers(...CALL_ERRORS, 404),
  },
  handler: async (request, reply, deps) => {
    const call = await checkoutCall(deps, request, reply);
    if (!call) return reply;
    assertSessionId(request.params.id);
    return sendCheckout(reply, call, await getCheckout(deps, call.ctx, request.params.id));
  },
});
