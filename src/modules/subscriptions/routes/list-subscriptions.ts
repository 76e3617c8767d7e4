import { LIST_PAGING } from '../../../core/agent-guide.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { ListEnvelope, newestFirstList } from '../../../http/paging.js';
import { SubscriptionListQuery, SubscriptionSchema } from '../schemas.js';
import { listSubscriptions, presentSubscription } from '../service.js';
import { TAGS } from './shared.js';

export const listSubscriptionsRoute = defineRoute({
  method: 'GET',
  path: '/subscriptions',
  operationId: 'listSubscriptions',
  summary: 'List subscriptions',
  description:
    'The subscriptions of the tenant, add-ons included (they have `parentSubscriptionId`), newest first. ' +
    LIST_PAGING.text,
  tags: TAGS,
  scope: 'read',
  query: SubscriptionListQuery,
  responses: { 200: ListEnvelope(SubscriptionSchema, 'The subscriptions.') },
  handler: async (request, _reply, deps) =>
    newestFirstList(request, deps.keyRing, {
      name: 'subscriptions',
      read: (tenantId, page) => listSubscriptions(deps.db, tenantId, request.query, page),
      present: presentSubscription,
      actions: [next('createSubscription', 'createSubscription')],
    }),
});
