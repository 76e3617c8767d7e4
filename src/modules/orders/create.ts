import type { Static } from 'typebox';
import { type BillingAdapter, type Invoice, presentInvoice, unwrapBilling } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import {
  declareOperation,
  GuardRefused,
  type Intent,
  local,
  type OperationKey,
  type Run,
  runUnitOfWork,
  type ServiceDeps,
  type UnitOfWork,
  type WriteSet,
} from '../../unit-of-work/index.js';
import { checkOutCart } from '../carts/index.js';
import { redeemPromotion } from '../catalog/index.js';
import { applyReservedCredit, type ReservedCredit, reserveCreditOnIssue } from '../credits/index.js';
import { partnerWarnings, type Warning } from '../partners/index.js';
import { reserveStock, reserveStockIfClear } from '../stock/index.js';
import { commitCreate, type Provisioned, provision, provisionSteps } from '../subscriptions/index.js';
import { getTenant } from '../tenants/index.js';
import { paymentStatusOf } from './payment-state.js';
import { noBilling, type OrderPlan, planOrder, type RulesApplied } from './plan.js';
import type { CreateOrderBody } from './schemas.js';
import { getOrder, type OrderApi, orderInsert, presentOrder } from './service.js';

export interface CreatedOrder {
  order: OrderApi;
  rulesApplied: RulesApplied;
  /** What is suspect in the order's context (an unknown partner), said beside the order. */
  warnings: Warning[];
  hasSubscription: boolean;
  /** A journey purchase provisioned subscriptions with it. */
  provisioned: boolean;
  /** The invoice issued for its one-time lines, as issued (what is left to pay). */
  invoice?: InvoiceState;
}

/** What an order's next actions need to know of its invoice. */
export interface InvoiceState {
  status: Invoice['status'];
  balanceCents: number;
}

const journeyPrefix = (i: number) => `journey-${i}-`;

/** In the unit of work: the cart checked out at the version the order was priced from, its code redeemed. */
async function checkOut(u: UnitOfWork, cart: NonNullable<OrderPlan['cart']>) {
  await checkOutCart(u.tx, u.ctx.tenantId, { id: cart.id, version: cart.version }, u.now);
  if (
    cart.promotionId &&
    cart.promoDiscountCents > 0 &&
    !(await redeemPromotion(u.tx, u.ctx.tenantId, cart.promotionId))
  )
    throw new AppError(
      'conflict',
      `Promotion ${cart.promoCode} reached its usage limit; remove it from the cart and retry`,
    );
}

/** In the unit of work: the tracked lines reserved (409 out_of_stock and nothing written if one cannot be). */
async function holdStock(u: UnitOfWork, plan: OrderPlan) {
  if (plan.stock && plan.stock.length > 0) await reserveStock(u, plan.order.id, plan.stock);
}

/** The order's row, audit entry and events (written by the unit's final statement). */
async function writeOrder(
  u: WriteSet,
  plan: OrderPlan,
  invoice: Invoice | null,
  paidCents = 0,
): Promise<CreatedOrder> {
  const dueCents = invoice ? invoice.amountCents : plan.order.totalCents;
  const row = {
    ...plan.order,
    tenantId: u.ctx.tenantId,
    invoiceId: invoice?.id ?? null,
    // An invoiced order is paid through its invoice: what it asks is the invoice's amount.
    dueCents,
    paidCents,
    refundedCents: 0,
    paymentStatus: paymentStatusOf(dueCents, paidCents, 0),
    tags: {},
    createdAt: u.now,
    updatedAt: u.now,
  };
  u.write(orderInsert(row));
  const order = presentOrder(row);
  await u.audit({ action: 'order.create', resourceType: 'order', resourceId: order.id });
  await u.emit('order.created', order);
  if (order.paymentStatus === 'paid') await u.emit('order.paid', order);
  return {
    order,
    rulesApplied: plan.rulesApplied,
    warnings: plan.warnings ?? [],
    hasSubscription: plan.hasSubscription,
    provisioned: plan.journey.length > 0,
    ...(invoice ? { invoice: { status: invoice.status, balanceCents: invoice.balanceCents } } : {}),
  };
}

async function emitOrderInvoice(u: WriteSet, invoice: Invoice | null, orderId: string) {
  if (invoice)
    await u.emit('invoice.created', {
      resourceType: 'invoice',
      resourceId: invoice.id,
      invoice: presentInvoice(invoice),
      orderId,
    });
}

/** The billing calls of a billing-linked order: its invoice and its journey's subscriptions. */
async function billOrder(intent: Intent<OrderPlan>, adapter: BillingAdapter, plan: OrderPlan) {
  const request = plan.invoice;
  const invoice = request
    ? unwrapBilling(
        await intent.call(
          'invoice',
          (idempotencyKey) => adapter.createInvoice({ ...request, idempotencyKey }),
          (v) => ({ invoiceId: v.id }),
        ),
        'Billing account',
      )
    : null;
  const journey: Provisioned[] = [];
  for (const [i, sub] of plan.journey.entries())
    journey.push(await provision(intent, adapter, sub, journeyPrefix(i)));
  return { invoice, journey };
}

/** What the billing calls made; the credit reserved on their invoices in the commit. */
interface Billed {
  invoice: Invoice | null;
  journey: Provisioned[];
  adapter: BillingAdapter;
  credits: ReservedCredit[];
}

/**
 * The partner of the context the order is priced with and records: the body's `customerContext`,
 * or its cart's (then the warning names `cartId`, where it came from).
 */
function contextWarnings(deps: ServiceDeps, tenantId: string, plan: OrderPlan): Promise<Warning[]> {
  const partner = plan.order.customerContext.partner;
  return partnerWarnings(
    deps.db,
    tenantId,
    typeof partner === 'string' ? partner : null,
    plan.cart ? 'cartId' : 'customerContext.partner',
  );
}

/**
 * POST /orders: an order from items, or a checkout of a cart. A plain order is one statement; a
 * checkout locks its cart in the order's transaction (409 if the cart changed since it was read);
 * a billing-linked order invoices its one-time lines and provisions a journey's subscriptions
 * under an intent first, undone if the order then fails.
 */
export const orderOperation = declareOperation<{
  input: Static<typeof CreateOrderBody>;
  plan: OrderPlan;
  called: Billed;
  result: CreatedOrder;
}>({
  name: 'orders.create',
  recovery: 'compensate',
  async plan(run, body) {
    const plan = await planOrder(run.deps, run.ctx, body);
    plan.warnings = await contextWarnings(run.deps, run.ctx.tenantId, plan);
    return noBilling(plan) ? local(() => createLocally(run, plan)) : plan;
  },
  steps: (plan) => [
    ...(plan.invoice ? [{ step: 'invoice', kind: 'create_invoice' as const }] : []),
    ...plan.journey.flatMap((sub, i) => provisionSteps(sub, journeyPrefix(i))),
  ],
  adapter: (deps, tenantId) => deps.billing.forTenant(deps.db, tenantId),
  noAdapter: () =>
    new AppError('conflict', 'The order is billing-linked but the tenant has no active billing integration'),
  call: async (_run, intent, adapter) => ({
    ...(await billOrder(intent, adapter, intent.plan)),
    adapter,
    credits: [],
  }),
  async commit(u, run, plan, billed) {
    if (plan.cart) await checkOut(u, plan.cart);
    await holdStock(u, plan);
    const made = await writeOrder(u, plan, billed.invoice);
    for (const [i, sub] of plan.journey.entries())
      await commitCreate(u, sub, billed.journey[i] as Provisioned, null, { orderId: made.order.id });
    await emitOrderInvoice(u, billed.invoice, made.order.id);
    // Reserved with the order (the reconciler applies it if this process stops now); applied
    // after the commit: an order that fails is undone by voiding its invoices, which credit would block.
    for (const invoice of [billed.invoice, ...billed.journey.map((j) => j.invoice)])
      billed.credits.push(await reserveCreditOnIssue(u, run.deps, billed.adapter, invoice, run.key));
    return made;
  },
  async afterCommit(run, plan, created, billed, adapter) {
    // The first reservation is the order's own invoice's; the others are its journey's.
    const [own, ...journey] = billed.credits;
    const credited = await applyReservedCredit(run.deps, run.ctx, adapter, own ?? null);
    for (const credit of journey) await applyReservedCredit(run.deps, run.ctx, adapter, credit);
    const told = credited ? await creditedOrder(run.deps, run.ctx, run.key, created, credited) : created;
    if (plan.cart) meterUsageLater(run.deps, run.ctx.tenantId, told.order.id, plan.cartUnits);
    return told;
  },
});

/**
 * The new order as credit on issue left it (its application moved the order's `paymentStatus` in
 * its own unit of work): the answer is told again, and stored again for retries.
 */
async function creditedOrder(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<CreatedOrder>,
  created: CreatedOrder,
  invoice: Invoice,
): Promise<CreatedOrder> {
  const row = await getOrder(deps.db, ctx.tenantId, created.order.id);
  if (!row) return created;
  const result: CreatedOrder = {
    ...created,
    order: presentOrder(row),
    invoice: { status: invoice.status, balanceCents: invoice.balanceCents },
  };
  await key.hooks?.afterCommit?.(result);
  return result;
}

/** An order without billing calls: its row, a checkout's cart and a journey's subscriptions. */
async function createLocally(run: Run<unknown, CreatedOrder>, plan: OrderPlan): Promise<CreatedOrder> {
  const { deps, ctx, key } = run;
  let created: CreatedOrder;
  const stock = plan.stock ?? [];
  if (stock.length > 0 && !plan.cart && plan.journey.length === 0) {
    // Tracked products, far from their thresholds: reserved by the order's one statement.
    try {
      created = await runUnitOfWork(
        deps,
        ctx,
        key,
        async (u) => {
          const made = await writeOrder(u, plan, null);
          reserveStockIfClear(u, made.order.id, stock);
          return made;
        },
        { buffered: true },
      );
      return created;
    } catch (err) {
      if (!(err instanceof GuardRefused)) throw err;
      // Near a threshold or out of stock: reserved under the rows' locks below, with its events.
    }
  }
  if (plan.cart || plan.journey.length > 0 || stock.length > 0) {
    created = await runUnitOfWork(deps, ctx, key, async (u) => {
      if (plan.cart) await checkOut(u, plan.cart);
      await holdStock(u, plan);
      const made = await writeOrder(u, plan, null);
      for (const sub of plan.journey)
        await commitCreate(u, sub, { billingSubscriptionId: null, invoice: null }, null, {
          orderId: made.order.id,
        });
      return made;
    });
  } else {
    // Nothing to lock or read: one statement, no BEGIN/COMMIT.
    created = await runUnitOfWork(deps, ctx, key, (u) => writeOrder(u, plan, null), { buffered: true });
  }
  if (plan.cart) meterUsageLater(deps, ctx.tenantId, created.order.id, plan.cartUnits);
  return created;
}

/**
 * In the caller's unit of work: an order without billing calls (an agentic checkout's), its cart
 * checked out at the version it was planned from and its row written paid by `paidCents` (the
 * payment the caller records in the same unit).
 */
export async function placeOrder(u: UnitOfWork, plan: OrderPlan, paidCents: number): Promise<CreatedOrder> {
  if (!noBilling(plan) || plan.journey.length > 0)
    throw new AppError('conflict', 'This order needs billing calls; place it with POST /orders');
  if (plan.cart) await checkOut(u, plan.cart);
  await holdStock(u, plan);
  return writeOrder(u, plan, null, paidCents);
}

export function createOrder(
  deps: ServiceDeps,
  ctx: OperationContext,
  body: Static<typeof CreateOrderBody>,
  key: OperationKey<CreatedOrder>,
): Promise<CreatedOrder> {
  return orderOperation.run(deps, ctx, body, key);
}

/** After the response: a usage event for an order made from a cart, if the tenant opted in. */
function meterUsageLater(deps: ServiceDeps, tenantId: string, orderId: string, units: number) {
  setImmediate(() => {
    void (async () => {
      if (!(await getTenant(deps.db, tenantId))?.usageMetering) return;
      await deps.usage.recordOrder(tenantId, orderId, units);
    })().catch((err) =>
      deps.logger.warn({ err, tenantId, orderId }, 'usage metering failed; the order is unaffected'),
    );
  });
}
