import type { RequestContext } from '../../../http/context.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { type Presented, respond } from '../../../http/operation.js';
import type { OperationKey } from '../../../unit-of-work/index.js';
import { type RenewalResult, renewSubscription } from '../renew.js';
import { RenewalSchema, SubscriptionParams } from '../schemas.js';
import { presentSubscription } from '../service.js';
import { OPERATION_ERRORS, subscriptionActions, TAGS } from './shared.js';

export const renewSubscriptionRoute = defineRoute({
  method: 'POST',
  path: '/subscriptions/:id/renew',
  operationId: 'renewSubscription',
  summary: 'Renew a subscription (bill its next period)',
  description:
    'Bills the next period. When due (`currentPeriodEnd` passed; the scheduler does it too): applies a ' +
    'pending change, starts and invoices the next period, opens a payment session. Earlier (`renewal: ' +
    '"early"`): invoices the next period now with a payment session; it starts at `currentPeriodEnd`, not ' +
    'invoiced again. 409 `subscription_not_due` when already billed ahead or a change is pending; 409 ' +
    '`conflict` when cancelled or ending. Event `subscription.renewed` as a period starts; audit ' +
    '`subscription.renew`.',
  tags: TAGS,
  scope: 'commerce',
  params: SubscriptionParams,
  responses: {
    200: Envelope(RenewalSchema, 'The subscription, and the period the renewal billed.'),
    ...OPERATION_ERRORS,
  },
  handler: async (request, reply, deps) => {
    const input = { subscriptionId: request.params.id };
    const renew = (ctx: RequestContext, key: OperationKey<RenewalResult>) =>
      renewSubscription(deps, ctx, input, key);
    const present = (r: RenewalResult, ctx: RequestContext): Presented => {
      const sub = presentSubscription(r.subscription);
      const data = {
        ...sub,
        renewal: r.kind,
        renewedPeriod: r.renewedPeriod,
        invoiceId: r.invoice?.id ?? null,
        paymentSessionId: r.paymentSessionId,
      };
      const actions = subscriptionActions(sub, deps.clock.now(), r.invoice);
      return { status: 200, body: envelope(ctx, data, actions) };
    };
    return respond(deps, request, reply, renew, present);
  },
});
