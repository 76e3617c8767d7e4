import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { ProductStockParams, ProductStockSchema } from '../schemas.js';
import { productStockOf } from '../service.js';
import { stockActions, stockExample } from './shared.js';

export const getProductStockRoute = defineRoute({
  method: 'GET',
  path: '/admin/products/:id/stock',
  operationId: 'getProductStock',
  summary: 'Get a product’s stock',
  description: 'Its `availability`; tracked: `onHand`, `reserved` (placed orders), `available`.',
  tags: ['Catalog admin'],
  scope: 'admin',
  params: ProductStockParams,
  responses: { 200: Envelope(ProductStockSchema, 'The stock.', stockExample), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const stock = await productStockOf(deps.db, ctx.tenantId, request.params.id);
    if (!stock) throw notFound('Product');
    return envelope(ctx, stock, stockActions(stock));
  },
});
