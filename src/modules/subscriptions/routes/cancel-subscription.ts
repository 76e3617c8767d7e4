import type { RequestContext } from '../../../http/context.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { respond } from '../../../http/operation.js';
import type { OperationKey } from '../../../unit-of-work/index.js';
import { cancelSubscription } from '../cancel.js';
import { CancelBody, SubscriptionParams, SubscriptionSchema } from '../schemas.js';
import type { SubscriptionRow } from '../service.js';
import { OPERATION_ERRORS, subscriptionRowResponse, TAGS } from './shared.js';

export const cancelSubscriptionRoute = defineRoute({
  method: 'POST',
  path: '/subscriptions/:id/cancel',
  operationId: 'cancelSubscription',
  summary: 'Cancel a subscription',
  description:
    '`end_of_period` (default): `pending_cancellation`, cancelled by the scheduler (see `timing`). ' +
    '`immediate`: `cancelled` now, giving back the unused time per `refund` (`credit.granted` or ' +
    '`refund.succeeded`; nothing to refund: 409 `payment_not_refundable`). The amounts and date equal POST ' +
    '/preview/cancellation. A pending change is dropped; live ' +
    'add-ons are cancelled too. 409 when already cancelled (or pending cancellation, for `end_of_period`). ' +
    'Event `subscription.cancelled` (status tells which); audit `subscription.cancel`.',
  tags: TAGS,
  scope: 'commerce',
  params: SubscriptionParams,
  body: CancelBody,
  responses: {
    200: Envelope(SubscriptionSchema, 'The subscription after cancelling.'),
    ...OPERATION_ERRORS,
  },
  handler: async (request, reply, deps) => {
    const input = { subscriptionId: request.params.id, ...request.body };
    const cancel = (ctx: RequestContext, key: OperationKey<SubscriptionRow>) =>
      cancelSubscription(deps, ctx, input, key);
    return respond(deps, request, reply, cancel, subscriptionRowResponse(deps.clock));
  },
});
