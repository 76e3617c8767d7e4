import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { cacheablePerKey } from '../../../http/cache.js';
import { defineRoute } from '../../../http/declared-route.js';
import { inMemoryList, ListEnvelope } from '../../../http/paging.js';
import { ShippingOptionQuery, ShippingOptionSchema } from '../schemas.js';
import { availableShippingOptions } from '../service.js';
import { listActions } from './shared.js';

export const listShippingOptionsRoute = defineRoute({
  method: 'GET',
  path: '/shipping-options',
  operationId: 'listShippingOptions',
  summary: 'List available shipping options',
  description:
    'The active shipping options, cheapest first (then by name), filtered by `country` and `currency`. ' +
    '`amountCents` is the price in minor units; `minDays`-`maxDays` the delivery estimate. Unknown query ' +
    `parameters are rejected with 400. Cacheable for 60 seconds. ${LIST_PAGING.text}`,
  tags: ['Shipping'],
  scope: 'read',
  query: ShippingOptionQuery,
  responses: {
    200: ListEnvelope(
      ShippingOptionSchema,
      'Active shipping options matching the filters, by amountCents then name.',
    ),
  },
  handler: async (request, reply, deps) => {
    const ctx = requireCtx(request);
    const options = await availableShippingOptions(deps.db, ctx.tenantId, request.query);
    cacheablePerKey(reply);
    return inMemoryList(deps.keyRing, ctx, request, 'shipping-options', options, listActions);
  },
});
