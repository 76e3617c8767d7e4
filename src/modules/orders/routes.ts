import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { type BillingAdapter, type Invoice, presentInvoice, unwrapBilling } from '../../billing/index.js';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import { readTogether } from '../../db/read-together.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { orderCreatedExample, orderExample, orderUpdatedExample } from '../../http/examples.js';
import {
  type BufferedMutation,
  type Mutation,
  runBufferedMutation,
  runMutation,
} from '../../http/mutation.js';
import type { TypedApp } from '../../http/types.js';
import { diffChanges } from '../../unit-of-work/index.js';
import { resolveAccount } from '../accounts/index.js';
import { type CheckoutCart, checkOutCart as checkOutCartRow, readCartForCheckout } from '../carts/index.js';
import { pricingDataRead, redeemPromotion } from '../catalog/index.js';
import {
  activePoliciesRead,
  assertAllowed,
  evaluateLoadedPolicies,
  evaluatePolicies,
} from '../policies/index.js';
import { priceLines, priceLinesWith } from '../pricing/index.js';
import { type Prepared, prepareCreate } from '../subscriptions/index.js';
import { getTenant } from '../tenants/index.js';
import { type PricedOrderLines, priceOrderLines } from './pricing.js';
import {
  CreatedOrderSchema,
  CreateOrderBody,
  OrderListQuery,
  OrderParams,
  OrderSchema,
  PatchOrderBody,
} from './schemas.js';
import {
  getOrder,
  listOrders,
  newOrderRow,
  type OrderApi,
  orderInsert,
  orderSequenceRead,
  presentOrder,
  updateOrder,
} from './service.js';
import type { OrderLine } from './tables.js';

const TAGS = ['Orders'];

function orderActions(
  order: OrderApi & { items: { productId: string }[] },
  hasSubscription: boolean,
  provisioned = false,
): ActionSpec[] {
  const next: ActionSpec[] = provisioned
    ? [action('subscriptions', 'GET', `/subscriptions?orderId=${order.id}`, 'read')]
    : hasSubscription
      ? [action('createSubscription', 'POST', '/subscriptions', 'commerce')]
      : order.invoiceId
        ? [
            action('payInvoice', 'POST', `/invoices/${order.invoiceId}/pay`, 'commerce'),
            action('createPaymentSession', 'POST', '/payments', 'commerce'),
          ]
        : [action('createPaymentSession', 'POST', '/payments', 'commerce')];
  return [
    action('self', 'GET', `/orders/${order.id}`, 'read'),
    action('update', 'PATCH', `/orders/${order.id}`, 'commerce'),
    ...next,
  ];
}

/** Key for the billing system's invoice of an order: stable across retries of the same request. */
function invoiceKey(request: FastifyRequest, cartId: string | null, totalCents: number): string {
  const header = request.headers['idempotency-key'];
  const basis = cartId
    ? `cart:${cartId}`
    : typeof header === 'string'
      ? `key:${header}`
      : `request:${request.id}`;
  return `order-invoice:${basis}:${totalCents}`;
}

interface Checkout {
  cart: CheckoutCart | null;
  items: { productId: string; quantity: number; priceCents?: number }[];
  context: { segment: string | null; locale: string | null; partner: string | null };
  currency: string;
}

async function checkoutInput(
  deps: Deps,
  ctx: RequestContext,
  body: Static<typeof CreateOrderBody>,
): Promise<Checkout> {
  if (!body.cartId) {
    const c = body.customerContext ?? {};
    return {
      cart: null,
      items: (body.items ?? []).map((i) => ({
        productId: i.productId,
        quantity: i.quantity ?? 1,
        ...(i.priceCents === undefined ? {} : { priceCents: i.priceCents }),
      })),
      context: { segment: c.segment ?? null, locale: c.locale ?? null, partner: c.partner ?? null },
      currency: body.currency ?? 'USD',
    };
  }
  // A plain read here (no transaction): the write locks the row and checks its version.
  const cart = await readCartForCheckout(deps.db, ctx.tenantId, body.cartId, false);
  if (cart === 'not_found') throw validationFailed('cartId', 'exists', 'cartId is not a cart of this tenant');
  if (cart === 'checked_out') throw new AppError('conflict', 'The cart is already checked out');
  const c = cart.customerContext;
  return {
    cart,
    items: cart.items.map((i) => ({ productId: i.productId, quantity: i.quantity })),
    context: { segment: c.segment ?? null, locale: c.locale ?? null, partner: c.partner ?? null },
    currency: cart.currency,
  };
}

/** The billing account to invoice one-time lines to: explicit, or the organization's externalId. */
async function billingTarget(
  deps: Deps,
  ctx: RequestContext,
  organizationId: string | null,
  explicit: string | undefined,
  adapter: BillingAdapter | null,
): Promise<string | null> {
  if (organizationId) {
    const owner = await resolveAccount(deps, ctx.tenantId, organizationId);
    if (owner?.source !== 'local')
      throw validationFailed('organizationId', 'exists', 'organizationId is not an account of this tenant');
    if (!explicit && owner.account.externalId && adapter?.isAccountId(owner.account.externalId))
      return owner.account.externalId;
  }
  if (explicit) {
    if (!adapter)
      throw validationFailed(
        'billingAccountId',
        'integration',
        'billingAccountId needs an active billing integration',
      );
    if (!adapter.isAccountId(explicit))
      throw validationFailed('billingAccountId', 'format', 'billingAccountId is not a billing account id');
    return explicit;
  }
  return null;
}

/** In the order's transaction: the cart is still active, becomes checked out, its promotion is redeemed. */
async function checkOutCart(m: Mutation, cart: CheckoutCart): Promise<void> {
  await checkOutCartRow(m.tx, m.ctx.tenantId, cart, m.now);
  if (
    cart.promotionId &&
    cart.promoDiscountCents > 0 &&
    !(await redeemPromotion(m.tx, m.ctx.tenantId, cart.promotionId))
  ) {
    throw new AppError(
      'conflict',
      `Promotion ${cart.promoCode} reached its usage limit; remove it from the cart and retry`,
    );
  }
}

export function registerOrderRoutes(app: TypedApp, deps: Deps) {
  app.post(
    '/api/v1/orders',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'createOrder',
        summary: 'Create an order',
        description:
          'Creates an order from `items` or from an active cart (`cartId`: its lines, totals and promo; the cart ' +
          'becomes `checked_out` in the same transaction). In order: unknown or inactive products are 400 naming ' +
          'the line; lines are priced by the pricing engine with `customerContext` (price rules, tiers, offers); ' +
          '`order_create` policies then see the resolved order and may block it (403 policy_blocked); passthrough ' +
          'charges get a live quote from the billing system (502 quote_unavailable when it cannot quote). `priceCents` ' +
          'and `totalCents` are hints: resolved values win and differing hints are listed in `rulesApplied`. An order ' +
          'with an owner starts `pending`, without one `draft`. When the owner is linked to a billing account ' +
          '(organization `externalId`, or `billingAccountId`), one-time lines are invoiced at once (`invoiceId`) and ' +
          '`nextActions` offers to pay that invoice; a billing outage is 502 with nothing written. Send an ' +
          'Idempotency-Key to retry safely. `rulesApplied` is returned on create only.',
        tags: TAGS,
        body: CreateOrderBody,
        response: {
          201: Envelope(CreatedOrderSchema, 'The order, with what decided it.', orderCreatedExample),
          ...errorResponses(502),
        },
      },
    },
    async (request, reply) => {
      const ctx = requireCtx(request);
      const body = request.body;
      const now = deps.clock.now();
      const input = await checkoutInput(deps, ctx, body);
      const owner = {
        contactId: body.contactId ?? input.cart?.contactId ?? null,
        organizationId: body.organizationId ?? input.cart?.organizationId ?? null,
      };
      let adapter: BillingAdapter | null | undefined;
      const billing = async () => {
        adapter ??= await deps.billing.forTenant(deps.db, ctx.tenantId);
        return adapter;
      };
      // One round trip: pricing data, the order_create policies and the order's number.
      const [pricingData, policies, sequence] = await readTogether(deps.db, [
        pricingDataRead(ctx.tenantId, [...new Set(input.items.map((i) => i.productId))]),
        activePoliciesRead(ctx.tenantId, 'order_create'),
        orderSequenceRead,
      ]);
      const priced = await priceOrderLines(
        priceLinesWith(pricingData, input.items, input.context, now),
        input.items,
        input.currency,
        billing,
      );
      // A cart's stored totals (its promo included) stand; quotes are added at checkout.
      const quotedCents = priced.quotes.reduce((s, q) => s + q.amountCents, 0);
      const totalCents = input.cart
        ? input.cart.totalCents + quotedCents
        : input.items.length > 0
          ? priced.totalCents
          : (body.totalCents ?? 0);
      if (body.totalCents !== undefined && input.items.length > 0 && body.totalCents !== totalCents) {
        priced.hints.push({ field: 'totalCents', submitted: body.totalCents, resolved: totalCents });
      }
      const policyEvaluation = evaluateLoadedPolicies(policies, {
        order: {
          items: priced.lines.map((l) => ({
            productId: l.productId,
            quantity: l.quantity,
            priceCents: l.priceCents,
          })),
          totalCents,
          currency: input.currency,
          contactId: owner.contactId,
          organizationId: owner.organizationId,
          journeyId: body.journeyId ?? null,
        },
        customerContext: input.context,
      });
      assertAllowed(policyEvaluation);
      // The integration is read only when the order may be invoiced.
      const mayInvoice = owner.organizationId !== null || body.billingAccountId !== undefined;
      const billingAccountId = mayInvoice
        ? await billingTarget(deps, ctx, owner.organizationId, body.billingAccountId, await billing())
        : null;
      const invoice = billingAccountId
        ? await invoiceOneTimeLines(
            await billing(),
            billingAccountId,
            priced,
            input,
            invoiceKey(request, input.cart?.id ?? null, totalCents),
          )
        : null;

      // A journey purchase provisions its subscriptions (the journey's create_subscription step).
      const journeySubscriptions = body.journeyId
        ? await prepareJourneySubscriptions(
            deps,
            request,
            ctx.tenantId,
            priced,
            owner,
            input,
            body.billingAccountId,
          )
        : [];

      let created: { id: string } | undefined; // set only when this request created the order (not on replay)
      /** Writes the order, its audit entry and events; `provision` runs between them (journeys). */
      const writeOrder = async (m: BufferedMutation, provision?: (orderId: string) => Promise<void>) => {
        const row = newOrderRow(
          m.ctx.tenantId,
          sequence,
          {
            status: owner.contactId || owner.organizationId ? 'pending' : 'draft',
            items: priced.lines.map(({ productType: _t, ...line }) => line),
            totalCents,
            currency: input.currency,
            ...owner,
            journeyId: body.journeyId ?? null,
            cartId: input.cart?.id ?? null,
            customerContext: input.context,
            promoCode: input.cart?.promoCode ?? null,
            discountCents:
              input.cart?.discountCents ?? priced.offers.reduce((s, o) => s + o.discountCents, 0),
            billingAccountId,
            invoiceId: invoice?.id ?? null,
          },
          m.now,
        );
        m.write(orderInsert(row));
        const order = presentOrder(row);
        created = order;
        await m.audit({ action: 'order.create', resourceType: 'order', resourceId: order.id });
        await m.emit('order.created', order);
        await provision?.(order.id);
        if (invoice)
          await m.emit('invoice.created', {
            resourceType: 'invoice',
            resourceId: invoice.id,
            invoice: presentInvoice(invoice),
            orderId: order.id,
          });
        const rulesApplied = {
          policyEvaluation: {
            allowed: policyEvaluation.allowed,
            evaluations: policyEvaluation.evaluations.map(({ policyId, policyName, policyType, result }) => ({
              policyId,
              policyName,
              policyType,
              result,
            })),
          },
          priceRules: priced.priceRules,
          offers: priced.offers,
          promotion: input.cart?.promoCode
            ? { code: input.cart.promoCode, discountCents: input.cart.promoDiscountCents }
            : null,
          quotes: priced.quotes,
          hints: priced.hints,
        };
        const hasSubscription = priced.lines.some((l) => l.productType === 'subscription');
        return {
          status: 201,
          body: envelope(
            m.ctx,
            { ...order, rulesApplied },
            orderActions(order, hasSubscription, journeySubscriptions.length > 0),
          ),
        };
      };
      // A plain order writes in one statement; a checkout locks its cart and a journey
      // provisions subscriptions, in one transaction with the order.
      const sent =
        !input.cart && journeySubscriptions.length === 0
          ? await runBufferedMutation(deps, request, reply, (m) => writeOrder(m))
          : await runMutation(deps, request, reply, async (m) => {
              if (input.cart) await checkOutCart(m, input.cart);
              return writeOrder(m, async (orderId) => {
                for (const subscription of journeySubscriptions)
                  await subscription.commit(m, null, { orderId });
              });
            });
      if (input.cart && created) meterUsageLater(deps, ctx.tenantId, request, created.id, input.cart);
      return sent;
    },
  );

  app.get(
    '/api/v1/orders',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listOrders',
        summary: 'List orders',
        description:
          'All orders of the tenant in one response, newest first (no pagination). Optional exact-match filters ' +
          '`contactId`, `organizationId`, `status`.',
        tags: TAGS,
        querystring: OrderListQuery,
        response: { 200: Envelope(Type.Array(OrderSchema), 'The orders.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const rows = await listOrders(deps.db, ctx.tenantId, request.query);
      return envelope(ctx, rows.map(presentOrder), [action('createOrder', 'POST', '/orders', 'commerce')]);
    },
  );

  app.get(
    '/api/v1/orders/:id',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getOrder',
        summary: 'Get an order',
        description:
          'The full order (same shape as create, without `rulesApplied`); 404 when not an order of this tenant.',
        tags: TAGS,
        params: OrderParams,
        response: { 200: Envelope(OrderSchema, 'The order.', orderExample), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const row = await getOrder(deps.db, ctx.tenantId, request.params.id);
      if (!row) throw notFound('Order');
      const order = presentOrder(row);
      return envelope(ctx, order, orderActions(order, false));
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
          'Changes `status` (free-form, usually pending -> confirmed -> fulfilled, or cancelled), `items` (re-priced ' +
          'like create) and/or `totalCents` (kept only for orders without items). `order_update` policies run ' +
          'first (403 policy_blocked). The audit entry `order.update` holds a before/after diff of the changed ' +
          'fields; event `order.updated`. Invoices and subscriptions made from the order are not changed.',
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
      const ctx = requireCtx(request);
      const current = await getOrder(deps.db, ctx.tenantId, request.params.id);
      if (!current) throw notFound('Order');
      const body = request.body;
      const evaluation = await evaluatePolicies(deps.db, ctx.tenantId, 'order_update', {
        order: presentOrder(current),
        changes: body,
      });
      assertAllowed(evaluation);
      let items: OrderLine[] | undefined;
      let totalCents = body.totalCents;
      if (body.items) {
        const lines = body.items.map((i) => ({ productId: i.productId, quantity: i.quantity ?? 1 }));
        const priced = await priceOrderLines(
          await priceLines(deps.db, ctx.tenantId, lines, current.customerContext, deps.clock.now()),
          lines,
          current.currency,
          () => deps.billing.forTenant(deps.db, ctx.tenantId),
        );
        items = priced.lines.map(({ productType: _t, ...line }) => line);
        if (items.length > 0) totalCents = priced.totalCents;
      } else if (totalCents !== undefined && current.items.length > 0) {
        totalCents = current.totalCents; // a priced order's total follows its lines
      }
      return runMutation(deps, request, reply, async (m) => {
        const before = await getOrder(m.tx, m.ctx.tenantId, current.id, true);
        if (!before) throw notFound('Order');
        const patch = {
          ...(body.status === undefined ? {} : { status: body.status }),
          ...(items === undefined ? {} : { items }),
          ...(totalCents === undefined ? {} : { totalCents }),
        };
        const after = await updateOrder(m.tx, m.ctx.tenantId, before.id, patch, m.now);
        if (!after) throw notFound('Order');
        const pick = (o: OrderApi) => ({ status: o.status, items: o.items, totalCents: o.totalCents });
        const order = presentOrder(after);
        await m.audit({
          action: 'order.update',
          resourceType: 'order',
          resourceId: order.id,
          details: diffChanges(pick(presentOrder(before)), pick(order)),
        });
        await m.emit('order.updated', order);
        return { status: 200, body: envelope(m.ctx, order, orderActions(order, false)) };
      });
    },
  );
}

/**
 * The subscriptions a journey purchase creates, one per subscription line, provisioned before
 * the order's transaction; their `subscription.created` carries no userId (SPEC section 6).
 */
async function prepareJourneySubscriptions(
  deps: Deps,
  request: FastifyRequest,
  tenantId: string,
  priced: PricedOrderLines,
  owner: { contactId: string | null; organizationId: string | null },
  input: Checkout,
  billingAccountId: string | undefined,
): Promise<Prepared[]> {
  const lines = priced.lines.filter((l) => l.productType === 'subscription');
  if (lines.length === 0) return [];
  if (!owner.contactId && !owner.organizationId)
    throw validationFailed(
      'organizationId',
      'required',
      'a journey purchase of a subscription needs an owner: organizationId or contactId',
    );
  const header = request.headers['idempotency-key'];
  const basis = input.cart
    ? `cart:${input.cart.id}`
    : typeof header === 'string'
      ? `key:${header}`
      : `request:${request.id}`;
  const prepared: Prepared[] = [];
  for (const [i, line] of lines.entries()) {
    prepared.push(
      await prepareCreate(
        deps,
        tenantId,
        {
          productId: line.productId,
          quantity: line.quantity,
          contactId: owner.contactId ?? undefined,
          organizationId: owner.organizationId ?? undefined,
          accountId: billingAccountId,
          customerContext: input.context,
        },
        `journey:${basis}:${i}:${line.productId}`,
      ),
    );
  }
  return prepared;
}

/** Invoices the one-time lines in the billing system (before our transaction; idempotent by key). */
async function invoiceOneTimeLines(
  adapter: BillingAdapter | null,
  accountId: string,
  priced: PricedOrderLines,
  input: Checkout,
  idempotencyKey: string,
): Promise<Invoice | null> {
  const oneTime = priced.lines.filter((l) => l.productType === 'one_time');
  if (!adapter || oneTime.length === 0) return null;
  const lines = oneTime.map((l) => ({
    description: `${l.productName} x ${l.quantity}`,
    quantity: 1,
    unitAmountCents: l.totalCents,
  }));
  const oneTimeTotal = oneTime.reduce((s, l) => s + l.totalCents, 0);
  const promo = Math.min(input.cart?.promoDiscountCents ?? 0, oneTimeTotal);
  if (promo > 0)
    lines.push({ description: `Promotion ${input.cart?.promoCode}`, quantity: 1, unitAmountCents: -promo });
  return unwrapBilling(
    await adapter.createInvoice({ accountId, currency: input.currency, lines, idempotencyKey }),
    'Billing account',
  );
}

/** After the response: a usage event for an order made from a cart, if the tenant opted in. */
function meterUsageLater(
  deps: Deps,
  tenantId: string,
  request: FastifyRequest,
  orderId: string,
  cart: CheckoutCart,
) {
  setImmediate(() => {
    void (async () => {
      const tenant = await getTenant(deps.db, tenantId);
      if (!tenant?.usageMetering) return;
      await deps.usage.recordOrder(
        tenantId,
        orderId,
        cart.items.reduce((s, i) => s + i.quantity, 0),
      );
    })().catch((err) =>
      request.log.warn({ err, tenantId, orderId }, 'usage metering failed; the order is unaffected'),
    );
  });
}
