import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { defineCrud, registerAdminCrud } from '../../http/admin-crud.js';
import { requireCtx } from '../../http/auth.js';
import { cacheablePerKey } from '../../http/cache.js';
import { action, Envelope, envelope } from '../../http/envelope.js';
import type { TypedApp } from '../../http/types.js';
import {
  ShippingOptionCreate,
  ShippingOptionQuery,
  ShippingOptionSchema,
  ShippingOptionUpdate,
} from './schemas.js';
import { availableShippingOptions, shippingOptionService } from './service.js';

const ABOUT =
  'A shipping option is a way to deliver an order: a name, a flat price in one currency, the countries it ' +
  'ships to (empty = every country) and a delivery estimate of minDays to maxDays. Inactive options stay ' +
  'stored but are not offered to buyers.';

// The catalog and carts land in later modules; the hints are the next steps an agent takes after choosing shipping.
const listActions = [
  action('catalog', 'GET', '/catalog', 'read'),
  action('createCart', 'POST', '/carts', 'commerce'),
];

/** Admin resource spec (routes and the seed loader share it). */
export const shippingOptionCrud = defineCrud({
  name: 'ShippingOption',
  plural: 'ShippingOptions',
  // The buyer-facing list below is `listShippingOptions`.
  listOperationId: 'listAllShippingOptions',
  path: '/admin/shipping-options',
  tag: 'Shipping admin',
  about: ABOUT,
  schema: ShippingOptionSchema,
  createBody: ShippingOptionCreate,
  updateBody: ShippingOptionUpdate,
  audit: {
    resourceType: 'shipping_option',
    create: 'shipping_option.create',
    update: 'shipping_option.update',
    delete: 'shipping_option.delete',
  },
  service: shippingOptionService,
});

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
          'The shipping options a buyer can choose from: active options only, cheapest first (then by name). ' +
          'Pass `country` (the destination, ISO 3166-1 alpha-2, any case) to keep the options that ship there ' +
          'or everywhere, and `currency` to keep the options priced in your cart’s currency. `amountCents` is ' +
          'the shipping price in minor units; `minDays`-`maxDays` is the delivery estimate. Unknown query ' +
          'parameters are rejected with 400. Cacheable for 60 seconds.',
        tags: ['Shipping'],
        querystring: ShippingOptionQuery,
        response: {
          200: Envelope(
            Type.Array(ShippingOptionSchema),
            'Active shipping options matching the filters, by amountCents then name.',
          ),
        },
      },
    },
    async (request, reply) => {
      const ctx = requireCtx(request);
      const options = await availableShippingOptions(deps.db, ctx.tenantId, request.query);
      cacheablePerKey(reply);
      return envelope(ctx, options, listActions);
    },
  );
}
