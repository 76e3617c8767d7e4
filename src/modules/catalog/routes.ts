import { LIST_PAGING } from '../../core/agent-guide.js';
import { registerAdminCrud } from '../../http/admin-crud.js';
import { requireCtx } from '../../http/auth.js';
import { cacheablePerKey } from '../../http/cache.js';
import type { Deps } from '../../http/deps.js';
import { action } from '../../http/envelope.js';
import { catalogExample } from '../../http/examples.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../http/paging.js';
import type { TypedApp } from '../../http/types.js';
import type { UnitOfWork } from '../../unit-of-work/index.js';
import { catalogCrudSpecs, productCrud } from './crud.js';
import { activeProducts, type ProductApi, presentProduct } from './products.js';
import { ProductSchema } from './schemas.js';

/** What a product's update does beside the catalog (the composition root wires it). */
export type ProductUpdated = (
  u: UnitOfWork,
  change: { before: ProductApi; after: ProductApi },
) => Promise<void>;

/** Admin endpoints for the catalog: products, price rules, offers, promotions, plan links and rules. */
export function registerCatalogAdminRoutes(app: TypedApp, deps: Deps, productUpdated?: ProductUpdated) {
  for (const spec of catalogCrudSpecs)
    registerAdminCrud(
      app,
      deps,
      spec === productCrud && productUpdated ? { ...productCrud, afterUpdate: productUpdated } : spec,
    );
}

/** `GET /catalog`: what this tenant sells, for agents deciding what to put in a cart. */
export function registerCatalogRoutes(app: TypedApp, deps: Deps) {
  app.get(
    '/api/v1/catalog',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getCatalog',
        summary: 'Product catalog',
        description:
          'The active products of this tenant with their charges (price models, tiers) and entitlements, at list ' +
          'prices: a product’s `resolvePrice` action gives what a customer pays, with price rules and offers. ' +
          `Cacheable 60 s. ${LIST_PAGING.text}`,
        tags: ['Catalog'],
        querystring: PageQuery,
        response: {
          200: ListEnvelope(ProductSchema, 'Active products, newest first.', catalogExample),
        },
      },
    },
    async (request, reply) => {
      const ctx = requireCtx(request);
      const items = (await activeProducts(deps.db, ctx.tenantId)).map(presentProduct);
      cacheablePerKey(reply);
      return inMemoryList(deps.keyRing, ctx, request, 'catalog', items, (shown) => [
        ...shown.map((p) => action('resolvePrice', 'GET', `/pricing/resolve?productId=${p.id}`, 'read')),
        action('createAccount', 'POST', '/accounts', 'commerce'),
        action('createCart', 'POST', '/carts', 'commerce'),
      ]);
    },
  );
}
