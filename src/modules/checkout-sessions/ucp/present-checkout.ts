import type { Static } from 'typebox';
import { orderPermalinkUrl } from '../../seller/index.js';
import type {
  CheckoutLine,
  CheckoutSession,
  CheckoutStatus,
  CheckoutTotals,
  FulfillmentOption,
} from '../model.js';
import { ucpMessage } from './messages.js';
import type { CheckoutResponse } from './schemas/checkout.js';
import type { Link, UcpCheckoutMeta } from './schemas/common.js';

// A checkout session as UCP's checkout resource: statuses, line items, totals (signed, in
// rendering order, adding up to the total), the fulfillment and discount extensions when
// negotiated, messages with JSONPaths, links, and the order once placed. The payment token is
// never part of it.

export type UcpCheckout = Static<typeof CheckoutResponse>;
type Total = { type: string; display_text?: string; amount: number };

export interface CheckoutPresentation {
  /** The public base URL (absolute), for `continue_url` and the order permalink. */
  base: string;
  ucp: Static<typeof UcpCheckoutMeta>;
  discount: boolean;
  fulfillment: boolean;
  links: Static<typeof Link>[];
}

export const UCP_STATUS: Record<CheckoutStatus, UcpCheckout['status']> = {
  not_ready: 'incomplete',
  ready: 'ready_for_complete',
  in_progress: 'complete_in_progress',
  requires_escalation: 'requires_escalation',
  completed: 'completed',
  canceled: 'canceled',
};

/** A line's own totals: its price, its share of the discounts, its tax, its total. */
export function lineTotals(line: CheckoutLine): Total[] {
  return [
    { type: 'subtotal', amount: line.baseAmount },
    ...(line.discount > 0 ? [{ type: 'items_discount', amount: -line.discount }] : []),
    ...(line.tax > 0 ? [{ type: 'tax', amount: line.tax }] : []),
    { type: 'total', amount: line.total },
  ];
}

/** Whether the session has a shipping option chosen (digital delivery is not a shipping line). */
export const shippingChosen = (session: CheckoutSession) =>
  session.fulfillmentOptions.some(
    (o) => o.id === session.selectedFulfillmentOptionId && o.type === 'shipping',
  );

/**
 * The checkout's totals: `subtotal` is the lines' prices, `items_discount` every discount (codes
 * and offers, all allocated to the lines) as a negative amount, `fulfillment` once a shipping
 * option is chosen, `tax` (0: we compute none); every entry but `total` adds up to it.
 */
export function checkoutTotals(totals: CheckoutTotals, fulfillmentChosen: boolean): Total[] {
  return [
    { type: 'subtotal', display_text: 'Subtotal', amount: totals.itemsBase },
    ...(totals.itemsDiscount > 0
      ? [{ type: 'items_discount', display_text: 'Discounts', amount: -totals.itemsDiscount }]
      : []),
    ...(fulfillmentChosen || totals.fulfillment > 0
      ? [{ type: 'fulfillment', display_text: 'Shipping', amount: totals.fulfillment }]
      : []),
    { type: 'tax', display_text: 'Tax', amount: totals.tax },
    { type: 'total', display_text: 'Total', amount: totals.total },
  ];
}

function option(o: FulfillmentOption) {
  return {
    id: o.id,
    title: o.title,
    ...(o.description ? { description: o.description } : {}),
    ...(o.carrier ? { carrier: o.carrier } : {}),
    ...(o.earliestDeliveryTime ? { earliest_fulfillment_time: o.earliestDeliveryTime } : {}),
    ...(o.latestDeliveryTime ? { latest_fulfillment_time: o.latestDeliveryTime } : {}),
    totals: [{ type: 'total', amount: o.amount }],
  };
}

export const DESTINATION_ID = 'dest_1';

/** The shipping address as a UCP postal address (what was sent, in UCP's names). */
export function postalAddress(a: NonNullable<CheckoutSession['address']>) {
  const [first, ...rest] = (a.name ?? '').split(' ').filter(Boolean);
  return {
    street_address: a.line1,
    ...(a.line2 ? { extended_address: a.line2 } : {}),
    address_locality: a.city,
    ...(a.region ? { address_region: a.region } : {}),
    postal_code: a.postalCode,
    address_country: a.country,
    ...(first ? { first_name: first } : {}),
    ...(rest.length ? { last_name: rest.join(' ') } : {}),
  };
}

/** One shipping method for the lines that ship, one group, the options the address allows. */
function fulfillmentOf(session: CheckoutSession) {
  const shipped = session.lines.filter((l) => l.requiresShipping).map((l) => l.id);
  if (shipped.length === 0) return undefined;
  return {
    methods: [
      {
        id: 'shipping_1',
        type: 'shipping' as const,
        line_item_ids: shipped,
        selected_destination_id: session.address ? DESTINATION_ID : null,
        destinations: session.address ? [{ id: DESTINATION_ID, ...postalAddress(session.address) }] : [],
        groups: [
          {
            id: 'group_1',
            line_item_ids: shipped,
            selected_option_id: session.selectedFulfillmentOptionId,
            options: session.fulfillmentOptions.filter((o) => o.type === 'shipping').map(option),
          },
        ],
      },
    ],
  };
}

/**
 * The codes sent, the ones applied, and the offers the catalog applied by itself (automatic);
 * with a single discount, where its amount went line by line.
 */
function discountsOf(session: CheckoutSession) {
  const offers = session.totals.itemsDiscount - session.totals.discount;
  const applied = [
    ...session.appliedDiscounts.map((d) => ({
      code: d.code,
      title: d.title,
      amount: d.amount,
      automatic: false,
    })),
    ...(offers > 0 ? [{ title: 'Offers', amount: offers, automatic: true }] : []),
  ];
  const allocations = session.lines
    .map((l, i) => ({ path: `$.line_items[${i}]`, amount: l.discount }))
    .filter((a) => a.amount > 0);
  return {
    codes: [...session.discountCodes],
    applied: applied.map((d) =>
      applied.length === 1 ? { ...d, method: 'across' as const, allocations } : d,
    ),
  };
}

function buyerOf(session: CheckoutSession) {
  const b = session.buyer;
  if (!b) return undefined;
  const buyer = {
    ...(b.firstName ? { first_name: b.firstName } : {}),
    ...(b.lastName ? { last_name: b.lastName } : {}),
    ...(b.email ? { email: b.email } : {}),
    ...(b.phone ? { phone_number: b.phone } : {}),
  };
  return Object.keys(buyer).length > 0 ? buyer : undefined;
}

/** The order's permalink, as every binding gives it (the seller module's). */
export const orderPermalink = (base: string, orderId: string) => orderPermalinkUrl(base, orderId);

export function presentCheckout(session: CheckoutSession, p: CheckoutPresentation): UcpCheckout {
  const buyer = buyerOf(session);
  const fulfillment = p.fulfillment ? fulfillmentOf(session) : undefined;
  return {
    ucp: p.ucp,
    id: session.id,
    status: UCP_STATUS[session.status],
    currency: session.currency.toUpperCase(),
    line_items: session.lines.map((l) => ({
      id: l.id,
      item: { id: l.productId, title: l.name, price: l.unitAmount },
      quantity: l.quantity,
      totals: lineTotals(l),
    })),
    ...(buyer ? { buyer } : {}),
    ...(fulfillment ? { fulfillment } : {}),
    ...(p.discount ? { discounts: discountsOf(session) } : {}),
    totals: checkoutTotals(session.totals, shippingChosen(session)),
    messages: session.messages.map((m) => ucpMessage(m, session)),
    links: p.links,
    expires_at: session.expiresAt,
    ...(session.continueUrl ? { continue_url: new URL(session.continueUrl, p.base).toString() } : {}),
    ...(session.orderId
      ? { order: { id: session.orderId, permalink_url: orderPermalink(p.base, session.orderId) } }
      : {}),
  };
}
