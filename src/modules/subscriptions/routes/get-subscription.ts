import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { SubscriptionParams, SubscriptionSchema } from '../schemas.js';
import { getSubscription, presentSubscription } from '../service.js';
import { subscriptionActions, TAGS } from './shared.js';

export const getSubscriptionRoute = defineRoute({
  method: 'GET',
  path: '/subscriptions/:id',
  operationId: 'getSubscription',
  summary: 'Get a subscription',
  description:
    'The subscription: plan, quantity, price per period, status, current period and any change waiting for ' +
    'the period end (`pendingChange`).',
  tags: TAGS,
  scope: 'read',
  params: SubscriptionParams,
  responses: { 200: Envelope(SubscriptionSchema, 'The subscription.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const row = await getSubscription(deps.db, ctx.tenantId, request.params.id);
    if (!row) throw notFound('Subscription');
    const sub = presentSubscription(row);
    return envelope(ctx, sub, subscriptionActions(sub, deps.clock.now()));
  },
});
