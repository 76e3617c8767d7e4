import { LIST_PAGING } from '../../core/agent-guide.js';
import { registerAdminCrud } from '../../http/admin-crud.js';
import { requireCtx } from '../../http/auth.js';
import { cacheablePerKey } from '../../http/cache.js';
import type { Deps } from '../../http/deps.js';
import { action } from '../../http/envelope.js';
import { inMemoryList, ListEnvelope } from '../../http/paging.js';
import type { TypedApp } from '../../http/types.js';
import { shippingOptionCrud } from './crud.js';
import { ShippingOptionQuery, ShippingOptionSchema } from './schemas.js';
import { availableShippingOptions } from './service.js';

// The catalog and carts land in later modules; the hints are the next steps an agent takes after choosing shipping.
const listActions = [
  action('catalog', 'GET', '/catalog', 'read'),
  action('createCart', 'POST', '/carts', 'commerce'),
];

/** Admin CRUD at /admin/shipping-options, and the buyer-facing list at /shipping-options. */
export function registerShippingRoutes(app: TypedApp, deps: Deps) {
  registerAdminCrud(app, deps, shippingOptionCrud);

  app.get(
    '/api/v1/shipping-options',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listShippingOptions',
        summary: 'List available shipping options',
        description:
          'The active shipping options, cheapest first (then by name), filtered by `country` and `currency`. ' +
          '`amountCents` is the price in minor units; `minDays`-`maxDays` the delivery estimate. Unknown query ' +
          `parameters are rejected with 400. Cacheable for 60 seconds. ${LIST_PAGING.text}`,
        tags: ['Shipping'],
        querystring: ShippingOptionQuery,
        response: {
          200: ListEnvelope(
            ShippingOptionSchema,
            'Active shipping options matching the filters, by amountCents then name.',
          ),
        },
      },
    },
    async (request, reply) => {
      const ctx = requireCtx(request);
      const options = await availableShippingOptions(deps.db, ctx.tenantId, request.query);
      cacheablePerKey(reply);
      return inMemoryList(deps.keyRing, ctx, request, 'shipping-options', options, listActions);
    },
  );
}
