import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { respond } from '../../../http/operation.js';
import { changeSubscription } from '../change.js';
import { ChangeQuantityBody, SubscriptionParams, SubscriptionSchema } from '../schemas.js';
import { OPERATION_ERRORS, subscriptionResponse, TAGS } from './shared.js';

export const changeSubscriptionQuantityRoute = defineRoute({
  method: 'POST',
  path: '/subscriptions/:id/change-quantity',
  operationId: 'changeSubscriptionQuantity',
  summary: 'Change the quantity of a subscription',
  description:
    'Sets `quantity` (different from now), re-priced. More units is an upgrade, fewer a downgrade under the ' +
    'family’s plan-change rules (default: more now, prorated; fewer at the period end). `plan_change` ' +
    'policies see `operation: "change_quantity"` and `targetQuantity` (403 when blocked). 409 when ' +
    'cancelled. Event `subscription.changed`; audit `subscription.change`.',
  tags: TAGS,
  scope: 'commerce',
  params: SubscriptionParams,
  body: ChangeQuantityBody,
  responses: {
    200: Envelope(SubscriptionSchema, 'The subscription after the change.'),
    ...OPERATION_ERRORS,
  },
  handler: async (request, reply, deps) => {
    const input = {
      subscriptionId: request.params.id,
      change: { kind: 'quantity' as const, ...request.body },
    };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => changeSubscription(deps, ctx, input, key),
      subscriptionResponse(200, deps.clock),
    );
  },
});
