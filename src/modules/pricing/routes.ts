import type { Static } from 'typebox';
import { notFound } from '../../core/errors.js';
import { toDecimal } from '../../core/money.js';
import { requireCtx } from '../../http/auth.js';
import { cacheablePerKey } from '../../http/cache.js';
import type { Deps } from '../../http/deps.js';
import { action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import type { TypedApp } from '../../http/types.js';
import { ResolvedPriceSchema, ResolveQuery } from './schemas.js';
import type { PricedLine } from './service.js';
import { priceLines } from './service.js';

function present(
  { product, resolution: r }: PricedLine,
  context: Static<typeof ResolvedPriceSchema>['context'],
) {
  const tiers = r.charges.map((c) => ({
    id: c.chargeId,
    name: c.name,
    price: c.amountCents === null ? null : toDecimal(c.amountCents, r.currency),
    priceCents: c.amountCents,
    currency: r.currency,
    chargeModel: c.chargeModel,
  }));
  const { productId, currency, quantity, charges, appliedPriceRules, appliedOffers, requiresQuote } = r;
  return {
    productId,
    productName: product.name,
    currency,
    quantity,
    context,
    basePriceCents: r.basePriceCents,
    subtotalCents: r.subtotalCents,
    discountCents: r.discountCents,
    totalCents: r.totalCents,
    unitPriceCents: r.unitPriceCents,
    pricingTierCount: tiers.length,
    tiers,
    charges,
    appliedPriceRules,
    appliedOffers,
    requiresQuote,
  };
}

export function registerPricingRoutes(app: TypedApp, deps: Deps) {
  app.get(
    '/api/v1/pricing/resolve',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'resolvePrice',
        summary: 'Resolve the price of a product',
        description:
          'What `quantity` of a product costs for a customer context: the list price, the price rule applied to ' +
          'each charge (the most specific match), the charge math (flat, per unit, graduated, volume), active ' +
          'offers and the total in minor units. Changes nothing; cacheable 60 s. 404 when the product is unknown ' +
          'or inactive.',
        tags: ['Pricing'],
        querystring: ResolveQuery,
        response: { 200: Envelope(ResolvedPriceSchema, 'The resolved price.'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const ctx = requireCtx(request);
      const q = request.query;
      const context = { segment: q.segment ?? null, locale: q.locale ?? null, partner: q.partner ?? null };
      const [line] = await priceLines(
        deps.db,
        ctx.tenantId,
        [{ productId: q.productId, quantity: q.quantity ?? 1 }],
        context,
        deps.clock.now(),
      );
      if (!line?.product.active) throw notFound('Product');
      cacheablePerKey(reply);
      return envelope(ctx, present(line, context), [
        action('catalog', 'GET', '/catalog', 'read'),
        action('createCart', 'POST', '/carts', 'commerce'),
      ]);
    },
  );
}
