import type { Static } from 'typebox';
import type { BillingAdapter, InvoiceLineInput } from '../../billing/index.js';
import type { OperationContext } from '../../core/context.js';
import { validationFailed } from '../../core/errors.js';
import { checkedTotal } from '../../core/money.js';
import { readTogether } from '../../db/read-together.js';
import type { ServiceDeps } from '../../unit-of-work/index.js';
import { resolveAccount } from '../accounts/index.js';
import { type CheckoutCart, cartCheckedOut, readCartForCheckout } from '../carts/index.js';
import { pricingDataRead } from '../catalog/index.js';
import type { Warning } from '../partners/index.js';
import {
  activePoliciesRead,
  assertAllowed,
  evaluateLoadedPolicies,
  type PolicyEvaluation,
} from '../policies/index.js';
import { priceLinesWith } from '../pricing/index.js';
import { draftProductsRead } from '../product-content/index.js';
import { type StockLine, stockLinesOf, trackedProductsRead } from '../stock/index.js';
import { type CreatePlan, planCreate } from '../subscriptions/index.js';
import { type PricedOrderLines, priceOrderLines } from './line-prices.js';
import type { CreateOrderBody } from './schemas.js';
import { type NewOrder, newOrderRow, orderSequenceRead } from './service.js';
import type { OrderPaymentStatus, OrderShipping } from './tables.js';

// Everything an order is decided from, before any billing call or write: its source (a cart or
// items), prices and live quotes, policies, the billing account, and the subscriptions of a
// journey purchase.

type Body = Static<typeof CreateOrderBody>;

interface OrderSource {
  cart: CheckoutCart | null;
  items: { productId: string; quantity: number; priceCents?: number }[];
  context: { segment: string | null; locale: string | null; partner: string | null };
  currency: string;
}

/** An agentic checkout's order: the session it comes from and the shipping chosen there. */
export interface CheckoutPlacement {
  sessionId: string;
  shipping: OrderShipping | null;
}

/** What decided the order's figures, returned on create. */
export interface RulesApplied {
  policyEvaluation: {
    allowed: boolean;
    evaluations: Pick<
      PolicyEvaluation['evaluations'][number],
      'policyId' | 'policyName' | 'policyType' | 'result'
    >[];
  };
  priceRules: PricedOrderLines['priceRules'];
  offers: PricedOrderLines['offers'];
  promotion: { code: string; discountCents: number } | null;
  quotes: PricedOrderLines['quotes'];
  hints: PricedOrderLines['hints'];
}

/** An order as decided before any billing call; JSON, as it is kept in the operation's intent. */
export interface OrderPlan {
  /** The order's row, numbered and with its id; `invoiceId` is set once the invoice exists. */
  order: Omit<NewOrder, 'invoiceId'> & {
    id: string;
    sequence: number;
    dueCents: number;
    paidCents: number;
    refundedCents: number;
    paymentStatus: OrderPaymentStatus;
  };
  /** The cart checked out, at the version the order was priced from. */
  cart: {
    id: string;
    version: number;
    promotionId: string | null;
    promoCode: string | null;
    promoDiscountCents: number;
  } | null;
  /** The invoice of the one-time lines, for a billing-linked owner. */
  invoice: { accountId: string; currency: string; lines: InvoiceLineInput[] } | null;
  /** A journey purchase: its subscriptions, provisioned with the order. */
  journey: CreatePlan[];
  rulesApplied: RulesApplied;
  hasSubscription: boolean;
  /** Units ordered from a cart (usage metering). */
  cartUnits: number;
  /** The lines of tracked products, reserved in the order's unit of work (absent in older plans). */
  stock?: StockLine[];
  /** What is suspect in the context the order is priced with (absent in older plans). */
  warnings?: Warning[];
}

async function orderSource(deps: ServiceDeps, tenantId: string, body: Body): Promise<OrderSource> {
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
  // A cart decides its lines and context: sent beside it they would be dropped, so they are refused.
  for (const field of ['items', 'customerContext'] as const)
    if (body[field] !== undefined)
      throw validationFailed(
        field,
        'cart',
        `${field} comes from the cart with cartId; omit it or change the cart`,
      );
  // Read without a lock: the order's transaction locks the cart and checks it is this version.
  const cart = await readCartForCheckout(deps.db, tenantId, body.cartId, false);
  if (cart === 'not_found') throw validationFailed('cartId', 'exists', 'cartId is not a cart of this tenant');
  if (cart === 'checked_out') throw cartCheckedOut();
  if (body.currency !== undefined && body.currency !== cart.currency)
    throw validationFailed('currency', 'cart', `the cart is in ${cart.currency}; omit currency or send that`);
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
  deps: ServiceDeps,
  tenantId: string,
  organizationId: string | null,
  explicit: string | undefined,
  adapter: BillingAdapter | null,
): Promise<string | null> {
  if (organizationId) {
    const owner = await resolveAccount(deps, tenantId, organizationId);
    if (owner?.source !== 'local')
      throw validationFailed('organizationId', 'exists', 'organizationId is not an account of this tenant');
    if (!explicit && owner.account.externalId && adapter?.isAccountId(owner.account.externalId))
      return owner.account.externalId;
  }
  if (!explicit) return null;
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

/** The one-time lines as invoice lines, the cart's promotion as a negative line; null when none. */
function oneTimeInvoiceLines(priced: PricedOrderLines, source: OrderSource): InvoiceLineInput[] | null {
  const oneTime = priced.lines.filter((l) => l.productType === 'one_time');
  if (oneTime.length === 0) return null;
  const lines = oneTime.map((l) => ({
    description: `${l.productName} x ${l.quantity}`,
    quantity: 1,
    unitAmountCents: l.totalCents,
  }));
  const promo = Math.min(
    source.cart?.promoDiscountCents ?? 0,
    oneTime.reduce((s, l) => s + l.totalCents, 0),
  );
  if (promo > 0)
    lines.push({ description: `Promotion ${source.cart?.promoCode}`, quantity: 1, unitAmountCents: -promo });
  return lines;
}

/** A journey purchase's subscriptions, one per subscription line, validated and priced now. */
async function journeyPlans(
  deps: ServiceDeps,
  tenantId: string,
  priced: PricedOrderLines,
  owner: { contactId: string | null; organizationId: string | null },
  source: OrderSource,
  accountId: string | undefined,
): Promise<CreatePlan[]> {
  const lines = priced.lines.filter((l) => l.productType === 'subscription');
  if (lines.length === 0) return [];
  if (!owner.contactId && !owner.organizationId)
    throw validationFailed(
      'organizationId',
      'required',
      'a journey purchase of a subscription needs an owner: organizationId or contactId',
    );
  const plans: CreatePlan[] = [];
  for (const line of lines)
    plans.push(
      await planCreate(deps, tenantId, {
        productId: line.productId,
        quantity: line.quantity,
        contactId: owner.contactId ?? undefined,
        organizationId: owner.organizationId ?? undefined,
        accountId,
        customerContext: source.context,
      }),
    );
  return plans;
}

/** A line of a product whose content is a draft: 400 naming it, as an inactive product is. */
function refuseDrafts(items: readonly { productId: string }[], drafts: readonly string[]) {
  const index = items.findIndex((i) => drafts.includes(i.productId));
  if (index < 0) return;
  const field = `items.${index}.productId`;
  throw validationFailed(
    field,
    'published',
    `${field} is a draft product: it is not offered until published`,
  );
}

/**
 * Decides an order: unknown or inactive products are 400 naming the line; lines are priced by
 * the engine and passthrough charges quoted live; `order_create` policies may block it (403);
 * references and the billing account are checked. Nothing is written and nothing is billed.
 */
export async function planOrder(
  deps: ServiceDeps,
  ctx: OperationContext,
  body: Body,
  checkout?: CheckoutPlacement,
): Promise<OrderPlan> {
  const now = deps.clock.now();
  const source = await orderSource(deps, ctx.tenantId, body);
  const owner = {
    contactId: body.contactId ?? source.cart?.contactId ?? null,
    organizationId: body.organizationId ?? source.cart?.organizationId ?? null,
  };
  let adapter: BillingAdapter | null | undefined;
  const billing = async () => {
    adapter ??= await deps.billing.forTenant(deps.db, ctx.tenantId);
    return adapter;
  };
  // References first (the owner, the billing account): another tenant's id is 400 before any
  // outside call (a passthrough quote) is made. The integration is read only when the order
  // may be invoiced.
  const mayInvoice = owner.organizationId !== null || body.billingAccountId !== undefined;
  const accountId = mayInvoice
    ? await billingTarget(deps, ctx.tenantId, owner.organizationId, body.billingAccountId, await billing())
    : null;
  // One round trip: pricing data, the order_create policies, the order's number, which of its
  // products have tracked stock and which are drafts (not offered).
  const productIds = [...new Set(source.items.map((i) => i.productId))];
  const [pricingData, policies, sequence, tracked, drafts] = await readTogether(deps.db, [
    pricingDataRead(ctx.tenantId, productIds),
    activePoliciesRead(ctx.tenantId, 'order_create'),
    orderSequenceRead,
    trackedProductsRead(ctx.tenantId, productIds),
    draftProductsRead(ctx.tenantId, productIds),
  ]);
  refuseDrafts(source.items, drafts);
  // A cart's stored totals (its promo included) stand; quotes and shipping are added at checkout.
  const shippingCents = checkout?.shipping?.amountCents ?? 0;
  const totalOf = (p: PricedOrderLines) =>
    checkedTotal(
      source.cart
        ? source.cart.totalCents + shippingCents + p.quotes.reduce((s, q) => s + q.amountCents, 0)
        : source.items.length > 0
          ? p.totalCents
          : (body.totalCents ?? 0),
      source.cart ? 'cartId' : source.items.length > 0 ? 'items' : 'totalCents',
    );
  // The spec's order: policies (403) on the engine's prices, before the live quote (502).
  let evaluation: PolicyEvaluation | undefined;
  const priced = await priceOrderLines(
    priceLinesWith(pricingData, source.items, source.context, now),
    source.items,
    source.currency,
    billing,
    (engineOnly) => {
      evaluation = evaluateLoadedPolicies(
        policies,
        policyContext(engineOnly, totalOf(engineOnly), source, owner, body),
      );
      assertAllowed(evaluation);
    },
  );
  if (!evaluation) throw new Error('order policies were not evaluated');
  // Tracked lines lacking stock now are refused before any billing call (the reservation decides).
  const stock = stockLinesOf(source.items, tracked);
  const totalCents = totalOf(priced);
  if (body.totalCents !== undefined && source.items.length > 0 && body.totalCents !== totalCents)
    priced.hints.push({ field: 'totalCents', submitted: body.totalCents, resolved: totalCents });
  const lines = accountId ? oneTimeInvoiceLines(priced, source) : null;
  const journey = body.journeyId
    ? await journeyPlans(deps, ctx.tenantId, priced, owner, source, body.billingAccountId)
    : [];
  const row = newOrderRow(
    ctx.tenantId,
    sequence,
    {
      ...orderFields(body, source, priced, owner, totalCents, accountId),
      // Placed and paid in one step by an agentic checkout: confirmed.
      ...(checkout ? { status: 'confirmed' } : {}),
      checkoutSessionId: checkout?.sessionId ?? null,
      shipping: checkout?.shipping ?? null,
    },
    now,
  );
  const { tenantId: _t, createdAt: _c, updatedAt: _u, invoiceId: _i, ...order } = row;
  return {
    order,
    cart: source.cart && {
      id: source.cart.id,
      version: source.cart.version,
      promotionId: source.cart.promotionId,
      promoCode: source.cart.promoCode,
      promoDiscountCents: source.cart.promoDiscountCents,
    },
    invoice: lines && accountId ? { accountId, currency: source.currency, lines } : null,
    journey,
    rulesApplied: rulesApplied(evaluation, priced, source),
    hasSubscription: priced.lines.some((l) => l.productType === 'subscription'),
    cartUnits: source.cart ? source.cart.items.reduce((s, i) => s + i.quantity, 0) : 0,
    stock,
  };
}

/** What `order_create` policies see: the order as priced by the engine (before any live quote). */
function policyContext(
  priced: PricedOrderLines,
  totalCents: number,
  source: OrderSource,
  owner: { contactId: string | null; organizationId: string | null },
  body: Body,
) {
  return {
    order: {
      items: priced.lines.map((l) => ({
        productId: l.productId,
        quantity: l.quantity,
        priceCents: l.priceCents,
      })),
      totalCents,
      currency: source.currency,
      ...owner,
      journeyId: body.journeyId ?? null,
    },
    customerContext: source.context,
  };
}

function orderFields(
  body: Body,
  source: OrderSource,
  priced: PricedOrderLines,
  owner: { contactId: string | null; organizationId: string | null },
  totalCents: number,
  billingAccountId: string | null,
): NewOrder {
  return {
    status: owner.contactId || owner.organizationId ? 'pending' : 'draft',
    items: priced.lines.map(({ productType: _t, ...line }) => line),
    totalCents,
    currency: source.currency,
    ...owner,
    journeyId: body.journeyId ?? null,
    cartId: source.cart?.id ?? null,
    customerContext: source.context,
    promoCode: source.cart?.promoCode ?? null,
    discountCents: source.cart?.discountCents ?? priced.offers.reduce((s, o) => s + o.discountCents, 0),
    billingAccountId,
    invoiceId: null,
    checkoutSessionId: null,
    shipping: null,
  };
}

function rulesApplied(
  evaluation: PolicyEvaluation,
  priced: PricedOrderLines,
  source: OrderSource,
): RulesApplied {
  return {
    policyEvaluation: {
      allowed: evaluation.allowed,
      evaluations: evaluation.evaluations.map(({ policyId, policyName, policyType, result }) => ({
        policyId,
        policyName,
        policyType,
        result,
      })),
    },
    priceRules: priced.priceRules,
    offers: priced.offers,
    promotion: source.cart?.promoCode
      ? { code: source.cart.promoCode, discountCents: source.cart.promoDiscountCents }
      : null,
    quotes: priced.quotes,
    hints: priced.hints,
  };
}

export const noBilling = (plan: OrderPlan) => !plan.invoice && plan.journey.every((p) => !p.billingAccountId);
