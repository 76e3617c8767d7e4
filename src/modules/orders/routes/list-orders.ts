import { LIST_PAGING } from '../../../core/agent-guide.js';
import { listOfRows, pageRequest, type SortKey } from '../../../core/paging.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import type { Deps } from '../../../http/deps.js';
import { next } from '../../../http/envelope.js';
import { ListEnvelope, listEnvelope, streamList } from '../../../http/paging.js';
import { OrderListQuery, OrderSchema } from '../schemas.js';
import { presentOrder, listOrders as readOrders } from '../service.js';
import { TAGS } from './order-responses.js';

/**
 * Every order matching the filters, read and presented a keyset batch at a time (for streaming).
 * The first batch is read before anything is sent, so a database that cannot answer (a pool wait
 * running out: 503) still gets a proper error response rather than a cut one.
 */
async function orderBatches(deps: Deps, tenantId: string, filters: Parameters<typeof readOrders>[2]) {
  const batch = 1_000;
  const read = (after: SortKey | null) => readOrders(deps.db, tenantId, filters, { limit: batch, after });
  const first = await read(null);
  return (async function* () {
    let rows = first;
    for (;;) {
      yield rows.slice(0, batch).map(presentOrder);
      const last = rows[batch - 1];
      if (rows.length <= batch || !last) return;
      rows = await read([last.sequence]);
    }
  })();
}

export const listOrders = defineRoute({
  method: 'GET',
  path: '/orders',
  operationId: 'listOrders',
  summary: 'List orders',
  description: `The orders of the tenant, newest first (by order number); filters match exactly. ${LIST_PAGING.text}`,
  tags: TAGS,
  scope: 'read',
  query: OrderListQuery,
  responses: { 200: ListEnvelope(OrderSchema, 'The orders.') },
  handler: async (request, reply, deps) => {
    const ctx = requireCtx(request);
    const actions = [next('createOrder', 'createOrder')];
    const where = { tenantId: ctx.tenantId, list: 'orders', keys: deps.keyRing };
    const page = pageRequest(where, request.query, ['integer']);
    if (!page) return streamList(ctx, reply, await orderBatches(deps, ctx.tenantId, request.query), actions);
    const rows = await readOrders(deps.db, ctx.tenantId, request.query, page);
    return listEnvelope(
      ctx,
      request,
      listOfRows(rows, page, (row) => [row.sequence], where, presentOrder),
      actions,
    );
  },
});
