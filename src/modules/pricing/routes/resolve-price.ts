import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { cacheablePerKey } from '../../../http/cache.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope, next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { partnerWarnings } from '../../partners/index.js';
import { ResolvedPriceSchema, ResolveQuery } from '../schemas.js';
import { priceLines } from '../service.js';
import { present } from './shared.js';

export const resolvePriceRoute = defineRoute({
  method: 'GET',
  path: '/pricing/resolve',
  operationId: 'resolvePrice',
  summary: 'Resolve the price of a product',
  description:
    'What `quantity` of a product costs for a customer context: the list price, the price rule applied to ' +
    'each charge (the most specific match), the charge math (flat, per unit, graduated, volume), active ' +
    'offers and the total in minor units. Changes nothing; cacheable 60 s. 404 when the product is unknown ' +
    'or inactive. An unknown `partner` is reported in `warnings`.',
  tags: ['Pricing'],
  scope: 'read',
  query: ResolveQuery,
  responses: { 200: Envelope(ResolvedPriceSchema, 'The resolved price.'), ...errorResponses(404) },
  handler: async (request, reply, deps) => {
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
    const warnings = await partnerWarnings(deps.db, ctx.tenantId, context.partner);
    cacheablePerKey(reply);
    const data = present(line, context);
    return envelope(ctx, warnings.length > 0 ? { ...data, warnings } : data, [
      next('catalog', 'getCatalog'),
      next('createCart', 'createCart'),
    ]);
  },
});
