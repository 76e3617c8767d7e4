import type { Deps } from '../../../http/deps.js';
import type { TagTarget } from '../../../http/tag-routes.js';
import { OrderSchema } from '../schemas.js';
import { type OrderRow, presentOrder, getOrder as readOrder } from '../service.js';
import { orderTags } from '../tags.js';
import { createOrder } from './create-order.js';
import { getOrder } from './get-order.js';
import { listOrders } from './list-orders.js';
import { invoiceStateOf, orderResponse, paymentsOf } from './order-responses.js';
import { updateOrder } from './update-order.js';

/** The orders' routes, in the order the OpenAPI document lists them. */
export const orderRoutes = [createOrder, listOrders, getOrder, updateOrder];

/** Tags of orders; a tag leaves the invoice as it is: it is read before, as for PATCH. */
export const orderTagTarget = (deps: Deps): TagTarget<OrderRow> => ({
  resource: 'orders',
  schema: OrderSchema,
  operations: orderTags,
  presenter: async (tenantId, id) => {
    const row = await readOrder(deps.db, tenantId, id);
    const invoice = row ? await invoiceStateOf(deps, tenantId, presentOrder(row)) : undefined;
    const payments = row ? await paymentsOf(deps, tenantId, row.id) : [];
    return (after, ctx) => orderResponse({ ...presentOrder(after), payments }, ctx, invoice);
  },
});
