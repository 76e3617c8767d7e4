import type { RequestContext } from '../../../http/context.js';
import { envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { ProductStockApi } from '../service.js';

export const stockActions = (stock: ProductStockApi) => [
  next('self', 'getProductStock', { id: stock.productId }),
  next('set', 'setProductStock', { id: stock.productId }),
];

export const stockResponse = (stock: ProductStockApi, ctx: RequestContext): Presented => ({
  status: 200,
  body: envelope(ctx, stock, stockActions(stock)),
});

const PRODUCT = '0190b000-0000-7000-8000-000000000001';

export const stockExample = {
  data: {
    productId: PRODUCT,
    tracked: true,
    onHand: 25,
    reserved: 3,
    available: 22,
    lowStockThreshold: 5,
    availability: 'in_stock',
    updatedAt: '2026-01-15T10:00:00.000Z',
  },
  nextActions: [
    {
      rel: 'self',
      method: 'GET',
      href: `/api/v1/admin/products/${PRODUCT}/stock`,
      requiredScope: 'admin',
      allowed: true,
    },
    {
      rel: 'set',
      method: 'PUT',
      href: `/api/v1/admin/products/${PRODUCT}/stock`,
      requiredScope: 'admin',
      allowed: true,
    },
  ],
};
