// The Agentic Commerce Protocol's order webhooks (spec 2026-04-17, openapi.agentic_checkout_webhook
// and the Order of schema.agentic_checkout): which of our events an `acp` subscription receives,
// and the body it receives for them, `{ type: order_create|order_update, data: ACP Order }`.
// Pure: acp-order-reads.ts gathers the facts, delivery/prepare.ts signs and sends.

/** Our events an `acp` subscription receives, for orders made by a checkout session. */
export const ACP_SOURCE_EVENTS = ['order.created', 'order.updated', 'order.paid', 'order.refunded'] as const;

export type AcpEventType = 'order_create' | 'order_update';

/** `order.created` is ACP's `order_create`; every later change of the order an `order_update`. */
export const acpEventTypeOf = (eventType: string): AcpEventType =>
  eventType === 'order.created' ? 'order_create' : 'order_update';

export const isAcpSourceEvent = (eventType: string): boolean =>
  (ACP_SOURCE_EVENTS as readonly string[]).includes(eventType);

/** The order as its events carry it (`presentOrder`), the fields ACP needs. */
export interface AcpSourceOrder {
  id: string;
  orderNumber: string;
  checkoutSessionId: string;
  status: string;
  currency: string;
  items: {
    productId: string;
    productName: string | null;
    quantity: number;
    priceCents: number;
    totalCents: number;
  }[];
  totalCents: number;
  discountCents: number;
  refundedCents: number;
  shipping: {
    optionId: string;
    name: string;
    amountCents: number;
    address?: {
      name?: string | undefined;
      line1: string;
      line2?: string | undefined;
      city: string;
      region?: string | undefined;
      postalCode: string;
      country: string;
    } | null;
  } | null;
}

/** An ACP Address from the order's shipping address. */
const acpAddress = (a: NonNullable<NonNullable<AcpSourceOrder['shipping']>['address']>) => ({
  name: a.name ?? '',
  line_one: a.line1,
  ...(a.line2 ? { line_two: a.line2 } : {}),
  city: a.city,
  state: a.region ?? '',
  country: a.country,
  postal_code: a.postalCode,
});

/** An ACP Adjustment: money given back or owed differently after the order (refund, credit, dispute). */
export interface AcpAdjustment {
  id: string;
  type: 'refund' | 'credit' | 'dispute';
  occurred_at: string;
  status: 'pending' | 'completed' | 'failed';
  amount: number;
  currency: string;
  description?: string;
  reason?: string;
}

export interface AcpOrderFacts {
  order: AcpSourceOrder;
  adjustments: AcpAdjustment[];
  /** Where the buyer can see the order. */
  permalinkUrl: string;
  support: { email: string | null; helpCenterUrl: string | null };
}

interface AcpTotal {
  type: 'subtotal' | 'discount' | 'fulfillment' | 'total' | 'amount_refunded';
  display_text: string;
  amount: number;
}

type FulfillmentState = 'canceled' | 'completed' | 'shipped' | 'processing' | 'pending';

/**
 * Our free-form order status in ACP's words: `created`, `confirmed`, `processing`, `shipped`,
 * `completed`, `canceled` (receivers must accept others, so an unknown one passes through).
 */
export function acpOrderStatus(status: string): string {
  const s = status.toLowerCase();
  if (s === 'cancelled' || s === 'canceled') return 'canceled';
  if (s === 'fulfilled' || s === 'delivered' || s === 'completed' || s === 'complete') return 'completed';
  if (s === 'shipped' || s === 'in_transit') return 'shipped';
  if (s === 'processing' || s === 'confirmed' || s === 'manual_review' || s === 'created') return s;
  if (s === 'pending' || s === 'open' || s === 'new') return 'created';
  return s;
}

function fulfillmentState(acpStatus: string): FulfillmentState {
  if (acpStatus === 'canceled') return 'canceled';
  if (acpStatus === 'completed') return 'completed';
  if (acpStatus === 'shipped') return 'shipped';
  return acpStatus === 'processing' ? 'processing' : 'pending';
}

/** A line's id as the checkout session named it: `li_<productId>`. */
export const acpLineId = (productId: string) => `li_${productId}`;

function lineItems(order: AcpSourceOrder, state: FulfillmentState) {
  return order.items.map((line) => {
    const current = state === 'canceled' ? 0 : line.quantity;
    const fulfilled = state === 'shipped' || state === 'completed' ? current : 0;
    const status = current === 0 ? 'removed' : fulfilled === current ? 'fulfilled' : 'processing';
    return {
      id: acpLineId(line.productId),
      title: line.productName ?? line.productId,
      product_id: line.productId,
      quantity: { ordered: line.quantity, current, fulfilled },
      unit_price: line.priceCents,
      subtotal: line.totalCents,
      status,
    };
  });
}

/** One fulfillment for the whole order: shipped with the option chosen at checkout, else digital. */
function fulfillments(order: AcpSourceOrder, state: FulfillmentState) {
  const status = {
    canceled: 'canceled',
    completed: 'delivered',
    shipped: 'shipped',
    processing: 'processing',
    pending: 'pending',
  }[state];
  return [
    {
      id: `ful_${order.id}`,
      type: order.shipping ? ('shipping' as const) : ('digital' as const),
      status,
      line_items: order.items.map((line) => ({ id: acpLineId(line.productId), quantity: line.quantity })),
      ...(order.shipping ? { description: order.shipping.name } : {}),
      ...(order.shipping?.address ? { destination: acpAddress(order.shipping.address) } : {}),
    },
  ];
}

function totals(order: AcpSourceOrder): AcpTotal[] {
  const subtotal = order.items.reduce((sum, line) => sum + line.totalCents, 0);
  const out: AcpTotal[] = [{ type: 'subtotal', display_text: 'Subtotal', amount: subtotal }];
  if (order.discountCents > 0)
    out.push({ type: 'discount', display_text: 'Discount', amount: order.discountCents });
  if (order.shipping)
    out.push({ type: 'fulfillment', display_text: order.shipping.name, amount: order.shipping.amountCents });
  out.push({ type: 'total', display_text: 'Total', amount: order.totalCents });
  if (order.refundedCents > 0)
    out.push({ type: 'amount_refunded', display_text: 'Refunded', amount: order.refundedCents });
  return out;
}

/** The ACP Order (`type: order`): every field we know, amounts in minor units. */
export function acpOrder(facts: AcpOrderFacts): Record<string, unknown> {
  const { order } = facts;
  const status = acpOrderStatus(order.status);
  const state = fulfillmentState(status);
  const support = {
    ...(facts.support.email ? { email: facts.support.email } : {}),
    ...(facts.support.helpCenterUrl ? { help_center_url: facts.support.helpCenterUrl } : {}),
  };
  return {
    type: 'order',
    id: order.id,
    checkout_session_id: order.checkoutSessionId,
    order_number: order.orderNumber,
    permalink_url: facts.permalinkUrl,
    status,
    ...(Object.keys(support).length > 0 ? { support } : {}),
    line_items: lineItems(order, state),
    fulfillments: fulfillments(order, state),
    adjustments: facts.adjustments,
    totals: totals(order),
  };
}

/** The webhook body: `{ "type": "order_create"|"order_update", "data": <ACP Order> }`. */
export function acpEventBody(eventType: string, facts: AcpOrderFacts): string {
  return JSON.stringify({ type: acpEventTypeOf(eventType), data: acpOrder(facts) });
}
