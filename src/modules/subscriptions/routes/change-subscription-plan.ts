import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { respond } from '../../../http/operation.js';
import { changeSubscription } from '../change.js';
import { ChangePlanBody, SubscriptionParams, SubscriptionSchema } from '../schemas.js';
import { OPERATION_ERRORS, subscriptionResponse, TAGS } from './shared.js';

export const changeSubscriptionPlanRoute = defineRoute({
  method: 'POST',
  path: '/subscriptions/:id/change-plan',
  operationId: 'changeSubscriptionPlan',
  summary: 'Change the plan of a subscription',
  description:
    'Moves to `targetProductId` under the tenant’s plan-change rule for the pair (direction by rank in the ' +
    'family, timing, proration). `immediate`: unused days of the current price credited, the rest of the ' +
    'period charged at the new price (by UTC days, half-up cents); `end_of_period`: `pending_change` until ' +
    'the period end, nothing charged now. 400 for an unknown, inactive or non-subscription target or ' +
    'another currency; 403 when `plan_change` policies block; 409 when cancelled. Event ' +
    '`subscription.changed`; audit `subscription.change`.',
  tags: TAGS,
  scope: 'commerce',
  params: SubscriptionParams,
  body: ChangePlanBody,
  responses: {
    200: Envelope(SubscriptionSchema, 'The subscription after the change.'),
    ...OPERATION_ERRORS,
  },
  handler: async (request, reply, deps) => {
    const input = { subscriptionId: request.params.id, change: { kind: 'plan' as const, ...request.body } };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => changeSubscription(deps, ctx, input, key),
      subscriptionResponse(200, deps.clock),
    );
  },
});
