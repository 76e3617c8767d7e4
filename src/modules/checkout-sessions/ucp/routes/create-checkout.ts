import { defineRoute } from '../../../../http/declared-route.js';
import { respond } from '../../../../http/operation.js';
import { createCheckout } from '../../index.js';
import { platformOf } from '../binding.js';
import { UCP_REST_PATH } from '../protocol.js';
import { CheckoutCreateBody, CheckoutResponse } from '../schemas/checkout.js';
import { Answer } from '../schemas/common.js';
import { checkoutExample } from '../schemas/examples.js';
import { changeOf } from '../to-change.js';
import { checkoutCall } from './call.js';
import { ucpEdge } from './edge.js';
import { CALL_ERRORS, errorAnswers, NEGOTIATION, TAGS } from './responses.js';

export const createUcpCheckout = defineRoute({
  method: 'POST',
  path: '/checkout-sessions',
  prefix: UCP_REST_PATH,
  protocol: ucpEdge,
  public: false,
  operationId: 'ucpCreateCheckout',
  summary: 'UCP: create a checkout session',
  description:
    'Opens a checkout for `line_items` (`item.id` is a product id), priced with its messages, status ' +
    '`incomplete` until what it needs is there (a product that ships needs a destination and an option; ' +
    'one that does not needs neither). Response-only fields sent (`id`, `status`, `totals`, `links`, ' +
    'prices) are ignored. ' +
    NEGOTIATION +
    'Send an Idempotency-Key to retry safely (another body under it: 409).',
  tags: TAGS,
  scope: 'commerce',
  body: CheckoutCreateBody,
  responses: {
    201: Answer(CheckoutResponse, 'The new checkout session.', checkoutExample),
    ...errorAnswers(...CALL_ERRORS, 409),
  },
  handler: async (request, reply, deps) => {
    const call = await checkoutCall(deps, request, reply);
    if (!call) return reply;
    const platform = await platformOf(deps, call.negotiated);
    return respond(
      deps,
      request,
      reply,
      (ctx, key) =>
        createCheckout(
          deps,
          ctx,
          {
            protocol: 'ucp',
            change: changeOf(request.body, call.active),
            platform,
          },
          key,
        ),
      call.answer(201),
    );
  },
});
