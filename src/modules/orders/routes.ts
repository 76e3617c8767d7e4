import { LIST_PAGING } from '../../core/agent-guide.js';
import { notFound } from '../../core/errors.js';
import { listOfRows, pageRequest, type SortKey } from '../../core/paging.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { orderCreatedExample, orderExample, orderUpdatedExample } from '../../http/examples.js';
import { type Presented, respond } from '../../http/operation.js';
import { ListEnvelope, listEnvelope, streamList } from '../../http/paging.js';
import type { TagTarget } from '../../http/tag-routes.js';
import type { TypedApp } from '../../http/types.js';
import { type CreatedOrder, createOrder, type InvoiceState } from './create.js';
import {
  CreatedOrderSchema,
  CreateOrderBody,
  OrderListQuery,
  OrderParams,
  OrderSchema,
  PatchOrderBody,
} from './schemas.js';
import { getOrder, listOrders, type OrderApi, type OrderRow, presentOrder } from './service.js';
import { orderTags } from './tags.js';
import { updateOrderFields } from './update.js';

const TAGS = ['Orders'];

/** What the order's payment sessions show of it: enough to see what was paid and what is open. */
type OrderPayment = NonNullable<OrderApi['payments']>[number];

/**
 * How an order is paid, when there is something to pay: nothing once it is paid (`paymentStatus`),
 * its invoice's balance (nothing once the invoice is paid or void), or else a payment session for
 * what is left of an owned, non-zero order (a draft, without an owner, is not paid), with the
 * order named so the payment counts on it. With open sessions covering the rest, the way on is
 * one of them. `invoice` is undefined when the billing system could not be read: the payment is
 * offered without the amount.
 */
function paymentActions(order: OrderApi, invoice: InvoiceState | undefined): ActionSpec[] {
  if (order.paymentStatus !== 'unpaid' && order.paymentStatus !== 'partially_paid') return [];
  if (order.invoiceId) {
    if (invoice && (invoice.status !== 'open' || invoice.balanceCents <= 0)) return [];
    return [
      action('payInvoice', 'POST', `/invoices/${order.invoiceId}/pay`, 'commerce', {
        ...(order.billingAccountId ? { accountId: order.billingAccountId } : {}),
        ...(invoice ? { amountCents: invoice.balanceCents } : {}),
        currency: order.currency,
      }),
    ];
  }
  // A draft (no owner) or an order of nothing has no one to pay or nothing to pay.
  if (order.totalCents <= 0 || (!order.organizationId && !order.contactId)) return [];
  const open = (order.payments ?? []).filter((p) => p.status === 'pending' || p.status === 'processing');
  const left = order.totalCents - order.paidCents - open.reduce((s, p) => s + p.amountCents, 0);
  if (left <= 0) return open.map((p) => action('openPayment', 'GET', `/payments/${p.id}`, 'read'));
  return [
    action('createPaymentSession', 'POST', '/payments', 'commerce', {
      ...(order.organizationId ? { accountId: order.organizationId } : {}),
      amountCents: left,
      currency: order.currency,
      orderId: order.id,
    }),
  ];
}

function orderActions(
  order: OrderApi,
  invoice: InvoiceState | undefined,
  hasSubscription = false,
  provisioned = false,
): ActionSpec[] {
  const next: ActionSpec[] = provisioned
    ? [action('subscriptions', 'GET', `/subscriptions?orderId=${order.id}`, 'read')]
    : hasSubscription
      ? [action('createSubscription', 'POST', '/subscriptions', 'commerce')]
      : paymentActions(order, invoice);
  return [
    action('self', 'GET', `/orders/${order.id}`, 'read'),
    action('update', 'PATCH', `/orders/${order.id}`, 'commerce'),
    ...next,
  ];
}

/**
 * Every order matching the filters, read and presented a keyset batch at a time (for streaming).
 * The first batch is read before anything is sent, so a database that cannot answer (a pool wait
 * running out: 503) still gets a proper error response rather than a cut one.
 */
async function orderBatches(deps: Deps, tenantId: string, filters: Parameters<typeof listOrders>[2]) {
  const batch = 1_000;
  const read = (after: SortKey | null) => listOrders(deps.db, tenantId, filters, { limit: batch, after });
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

/** The order's invoice as the billing system has it now; undefined when there is none or it cannot be read. */
async function invoiceStateOf(
  deps: Deps,
  tenantId: string,
  order: OrderApi,
): Promise<InvoiceState | undefined> {
  if (!order.invoiceId) return undefined;
  const adapter = await deps.billing.forTenant(deps.db, tenantId);
  const read = adapter ? await adapter.getInvoice(order.invoiceId) : undefined;
  return read?.ok ? { status: read.value.status, balanceCents: read.value.balanceCents } : undefined;
}

/** The payment sessions paying the order (single-order responses). */
async function paymentsOf(deps: Deps, tenantId: string, orderId: string): Promise<OrderPayment[]> {
  const sessions = await deps.lookups.orderSessions(deps.db, tenantId, orderId);
  return sessions.map((p) => ({
    id: p.id,
    amountCents: p.amountCents,
    status: p.status,
    refundedCents: p.refundedCents,
    reversed: p.reversal !== null,
    createdAt: p.createdAt.toISOString(),
  }));
}

/** The order in its envelope, with what comes next. */
const orderResponse = (order: OrderApi, ctx: RequestContext, invoice?: InvoiceState): Presented => ({
  status: 200,
  body: envelope(ctx, order, orderActions(order, invoice)),
});

/** A new order with `rulesApplied` (returned on create only). */
const createdOrderResponse = (created: CreatedOrder, ctx: RequestContext): Presented => ({
  status: 201,
  body: envelope(
    ctx,
    { ...created.order, payments: [], rulesApplied: created.rulesApplied },
    orderActions(created.order, created.invoice, created.hasSubscription, created.provisioned),
  ),
});

export function registerOrderRoutes(app: TypedApp, deps: Deps) {
  app.post(
    '/api/v1/orders',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'createOrder',
        summary: 'Create an order',
        description:
          'Creates an order from `items` or an active cart (`cartId`: it becomes `checked_out` atomically and ' +
          'decides lines, context and currency: 400 rule `cart` if sent beside it). ' +
          'Unknown or inactive products: 400 naming the line. Priced with `customerContext`; `order_create` ' +
          'policies may block it (403 `policy_blocked`); passthrough charges are quoted live (502 ' +
          '`quote_unavailable`). Resolved prices win over `priceCents`/`totalCents` hints (see `rulesApplied`). ' +
          'Starts `pending` with an owner, else `draft`. With a billing ' +
          'account (organization `externalId` or `billingAccountId`), one-time lines are invoiced at once ' +
          '(`invoiceId`, pay action); a billing outage is 502 with nothing written. Send an Idempotency-Key to ' +
          'retry safely.',
        tags: TAGS,
        body: CreateOrderBody,
        response: {
          201: Envelope(CreatedOrderSchema, 'The order, with what decided it.', orderCreatedExample),
          ...errorResponses(502),
        },
      },
    },
    async (request, reply) =>
      respond(
        deps,
        request,
        reply,
        (ctx, key) => createOrder(deps, ctx, request.body, key),
        createdOrderResponse,
      ),
  );

  app.get(
    '/api/v1/orders',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listOrders',
        summary: 'List orders',
        description: `The orders of the tenant, newest first (by order number); filters match exactly. ${LIST_PAGING.text}`,
        tags: TAGS,
        querystring: OrderListQuery,
        response: { 200: ListEnvelope(OrderSchema, 'The orders.') },
      },
    },
    async (request, reply) => {
      const ctx = requireCtx(request);
      const actions = [action('createOrder', 'POST', '/orders', 'commerce')];
      const where = { tenantId: ctx.tenantId, list: 'orders', keys: deps.keyRing };
      const page = pageRequest(where, request.query, ['integer']);
      if (!page)
        return streamList(ctx, reply, await orderBatches(deps, ctx.tenantId, request.query), actions);
      const rows = await listOrders(deps.db, ctx.tenantId, request.query, page);
      return listEnvelope(
        ctx,
        request,
        listOfRows(rows, page, (row) => [row.sequence], where, presentOrder),
        actions,
      );
    },
  );

  app.get(
    '/api/v1/orders/:id',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getOrder',
        summary: 'Get an order',
        description: 'The full order: the shape create returns, without `rulesApplied`.',
        tags: TAGS,
        params: OrderParams,
        response: { 200: Envelope(OrderSchema, 'The order.', orderExample), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const row = await getOrder(deps.db, ctx.tenantId, request.params.id);
      if (!row) throw notFound('Order');
      const order = { ...presentOrder(row), payments: await paymentsOf(deps, ctx.tenantId, row.id) };
      return envelope(ctx, order, orderActions(order, await invoiceStateOf(deps, ctx.tenantId, order)));
    },
  );

  app.patch(
    '/api/v1/orders/:id',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'updateOrder',
        summary: 'Update an order',
        description:
          'Changes `status`, `items` (re-priced like create) and/or `totalCents` (refused, never dropped, where ' +
          'it does not apply). `order_update` policies run first (403 `policy_blocked`). Audit `order.update`; ' +
          'event `order.updated`. Invoices and subscriptions made from the order are not changed.',
        tags: TAGS,
        params: OrderParams,
        body: PatchOrderBody,
        response: {
          200: Envelope(OrderSchema, 'The updated order.', orderUpdatedExample),
          ...errorResponses(404, 502),
        },
      },
    },
    async (request, reply) => {
      const input = { orderId: request.params.id, changes: request.body };
      // An update leaves the invoice as it is: read before, so the presenter needs no billing call.
      const tenantId = requireCtx(request).tenantId;
      const before = await getOrder(deps.db, tenantId, input.orderId);
      const invoice = before ? await invoiceStateOf(deps, tenantId, presentOrder(before)) : undefined;
      // Nor does it change the order's payments: read before too.
      const payments = before ? await paymentsOf(deps, tenantId, before.id) : [];
      return respond<OrderApi>(
        deps,
        request,
        reply,
        (ctx, key) => updateOrderFields(deps, ctx, input, key),
        (order, ctx) => orderResponse({ ...order, payments }, ctx, invoice),
      );
    },
  );
}

/** Tags of orders; a tag leaves the invoice as it is: it is read before, as for PATCH. */
export const orderTagTarget = (deps: Deps): TagTarget<OrderRow> => ({
  resource: 'orders',
  schema: OrderSchema,
  operations: orderTags,
  presenter: async (tenantId, id) => {
    const row = await getOrder(deps.db, tenantId, id);
    const invoice = row ? await invoiceStateOf(deps, tenantId, presentOrder(row)) : undefined;
    const payments = row ? await paymentsOf(deps, tenantId, row.id) : [];
    return (after, ctx) => orderResponse({ ...presentOrder(after), payments }, ctx, invoice);
  },
});
