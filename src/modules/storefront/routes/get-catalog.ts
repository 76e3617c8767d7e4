import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { cacheablePerKey } from '../../../http/cache.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { activeProducts, buyActions, presentProduct } from '../../catalog/index.js';
import { unpublishedProductIds } from '../../product-content/index.js';
import { stockOfProducts } from '../../stock/index.js';
import { CatalogProductSchema } from '../schemas.js';

/** Recorded from the real route (ids replaced by fixed ones). */
export const catalogExample = {
  data: [
    {
      id: '0190b000-0000-7000-8000-000000000003',
      name: 'Onboarding workshop',
      description: null,
      type: 'one_time',
      family: null,
      rank: null,
      billingInterval: null,
      currency: 'USD',
      active: true,
      requiresShipping: false,
      entitlements: {},
      charges: [
        {
          id: '0190b000-0000-7000-8000-000000000004',
          name: 'Seat',
          kind: 'modeled',
          chargeModel: 'per_unit',
          tiers: [
            {
              upTo: null,
              unitPriceCents: 2500,
              flatPriceCents: 0,
            },
          ],
        },
      ],
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T10:00:00.000Z',
      availability: 'in_stock',
      available: null,
    },
  ],
  nextActions: [
    {
      rel: 'resolvePrice',
      method: 'GET',
      href: '/api/v1/pricing/resolve?productId=0190b000-0000-7000-8000-000000000003',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'createCart',
      method: 'POST',
      href: '/api/v1/carts',
      requiredScope: 'commerce',
      allowed: true,
      arguments: {
        currency: 'USD',
        items: [{ productId: '0190b000-0000-7000-8000-000000000003', quantity: 1 }],
      },
    },
    {
      rel: 'createAccount',
      method: 'POST',
      href: '/api/v1/accounts',
      requiredScope: 'commerce',
      allowed: true,
    },
    {
      rel: 'searchCatalog',
      method: 'GET',
      href: '/api/v1/catalog/search',
      requiredScope: 'read',
      allowed: true,
    },
  ],
};

export const getCatalogRoute = defineRoute({
  method: 'GET',
  path: '/catalog',
  operationId: 'getCatalog',
  summary: 'Product catalog',
  description:
    'The active, published products with their charges (price models, tiers) and entitlements, at list ' +
    'prices: a product’s `resolvePrice` action gives what a customer pays, with price rules and offers. ' +
    'Each shows `availability` and, when its stock is tracked, the units `available`. ' +
    `Cacheable 60 s. ${LIST_PAGING.text}`,
  tags: ['Catalog'],
  scope: 'read',
  query: PageQuery,
  responses: {
    200: ListEnvelope(CatalogProductSchema, 'Active products, newest first.', catalogExample),
  },
  handler: async (request, reply, deps) => {
    const ctx = requireCtx(request);
    const active = await activeProducts(deps.db, ctx.tenantId);
    const drafts = await unpublishedProductIds(
      deps.db,
      ctx.tenantId,
      active.map((p) => p.id),
    );
    const offered = active.filter((p) => !drafts.has(p.id));
    const stock = await stockOfProducts(
      deps.db,
      ctx.tenantId,
      offered.map((p) => p.id),
    );
    const items = offered.map((p) => {
      const s = stock.get(p.id);
      return {
        ...presentProduct(p),
        availability: s?.availability ?? 'in_stock',
        available: s?.tracked ? s.available : null,
      };
    });
    cacheablePerKey(reply);
    // Each product with the way to buy it; with a cart already, searchCatalog takes `cartId`.
    return inMemoryList(deps.keyRing, ctx, request, 'catalog', items, (shown) => [
      ...shown.flatMap((p) => [next('resolvePrice', 'resolvePrice', { productId: p.id }), ...buyActions(p)]),
      ...(shown.length === 0 ? [next('createCart', 'createCart')] : []),
      next('createAccount', 'createAccount'),
      next('searchCatalog', 'searchCatalog'),
    ]);
  },
});
