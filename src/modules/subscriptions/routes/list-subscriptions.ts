import { LIST_PAGING } from '../../../core/agent-guide.js';
import { createdKey, listOfRows, NEWEST_FIRST, pageRequest } from '../../../core/paging.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { ListEnvelope, listEnvelope } from '../../../http/paging.js';
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
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const where = { tenantId: ctx.tenantId, list: 'subscriptions', keys: deps.keyRing };
    const page = pageRequest(where, request.query, NEWEST_FIRST);
    const rows = await listSubscriptions(deps.db, ctx.tenantId, request.query, page);
    return listEnvelope(ctx, request, listOfRows(rows, page, createdKey, where, presentSubscription), [
      next('createSubscription', 'createSubscription'),
    ]);
  },
});
