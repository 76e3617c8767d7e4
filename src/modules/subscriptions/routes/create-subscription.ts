import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { createSubscription } from '../create.js';
import { CreateSubscriptionBody, SubscriptionSchema } from '../schemas.js';
import { subscriptionResponse, TAGS } from './shared.js';

export const createSubscriptionRoute = defineRoute({
  method: 'POST',
  path: '/subscriptions',
  operationId: 'createSubscription',
  summary: 'Create a subscription (or buy an add-on)',
  description:
    'Subscribes an owner (`organizationId` and/or `contactId`, at least one) to a `subscription` product, ' +
    'priced with `customerContext`; the first period starts now. With a billing account (`accountId` or the ' +
    'organization’s `externalId`) it is provisioned in the billing system and its first period invoiced ' +
    '(`payInvoice` action); a billing outage is 502 with nothing recorded. With `parentSubscriptionId` and ' +
    'an `add_on` product it buys an add-on renewing with the parent, its first period prorated. One ' +
    'subscription per `orderId` and product. Send an Idempotency-Key to retry safely. Event ' +
    '`subscription.created`; audit `subscription.create`.',
  tags: TAGS,
  scope: 'commerce',
  body: CreateSubscriptionBody,
  responses: { 201: Envelope(SubscriptionSchema, 'The new subscription.'), ...errorResponses(502) },
  handler: async (request, reply, deps) => {
    const input = { ...request.body, quantity: request.body.quantity ?? 1 };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => createSubscription(deps, ctx, input, key),
      subscriptionResponse(201, deps.clock),
    );
  },
});
