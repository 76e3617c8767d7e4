import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { setProductStock } from '../operations.js';
import { ProductStockParams, ProductStockSchema, SetProductStockBody } from '../schemas.js';
import { stockExample, stockResponse } from './shared.js';

export const setProductStockRoute = defineRoute({
  method: 'PUT',
  path: '/admin/products/:id/stock',
  operationId: 'setProductStock',
  summary: 'Set a product’s stock',
  description:
    'Tracked: orders, cart checkouts and agentic checkouts reserve units when placed; a line asking more than ' +
    'is available is refused with 409 `out_of_stock` naming it. `onHand` replaces the count; `reserved` is kept. ' +
    '`availability` preorder or backorder sells beyond onHand. Emits `product.stock_low` / `product.out_of_stock` ' +
    'on crossing. Audit `product.stock_set`.',
  tags: ['Catalog admin'],
  scope: 'admin',
  params: ProductStockParams,
  body: SetProductStockBody,
  responses: {
    200: Envelope(ProductStockSchema, 'The stock as it is now.', stockExample),
    ...errorResponses(404),
  },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => setProductStock(deps, ctx, { productId: request.params.id, stock: request.body }, key),
      stockResponse,
    ),
});
