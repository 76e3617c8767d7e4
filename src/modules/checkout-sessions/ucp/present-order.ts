import type { Static } from 'typebox';
import type { CheckoutLine, CheckoutSession } from '../model.js';
import {
  checkoutTotals,
  lineTotals,
  orderPermalink,
  postalAddress,
  shippingChosen,
} from './present-checkout.js';
import type { UcpOrderMeta } from './schemas/common.js';
import type { OrderResponse } from './schemas/order.js';

// The UCP order entity (order.md): a current-state snapshot of an order a UCP checkout placed,
// the same for GET /orders/{id} and the order webhook. Lines, totals and the shipping address are
// the checkout's at completion; the order's own state (its free-form status, refunds) gives the
// quantities, fulfillment events and adjustments.

export type UcpOrder = Static<typeof OrderResponse>;

/**
 * What the entity needs of our order: its id, number (the `label`; unknown while the order is
 * being placed), free-form status, refunds and last change.
 */
export interface OrderFacts {
  id: string;
  sequence: number | null;
  status: string;
  refundedCents: number;
  updatedAt: Date;
}

/** The facts of an order a completion is placing (in its unit of work, before the row is written). */
export const placedOrderFacts = (session: CheckoutSession, orderId: string): OrderFacts => ({
  id: orderId,
  sequence: null,
  status: 'confirmed',
  refundedCents: 0,
  updatedAt: new Date(session.updatedAt),
});

const isCanceled = (status: string) => /^cancel+ed$/i.test(status);
const isFulfilled = (status: string) => /^(fulfilled|delivered|completed)$/i.test(status);

function orderLine(line: CheckoutLine, order: OrderFacts) {
  const total = isCanceled(order.status) ? 0 : line.quantity;
  const fulfilled = isFulfilled(order.status) ? total : 0;
  const status =
    total === 0 ? 'removed' : fulfilled === total ? 'fulfilled' : fulfilled > 0 ? 'partial' : 'processing';
  return {
    id: line.id,
    item: { id: line.productId, title: line.name, price: line.unitAmount },
    quantity: { original: line.quantity, total, fulfilled },
    totals: lineTotals(line),
    status: status as UcpOrder['line_items'][number]['status'],
  };
}

const refs = (lines: CheckoutLine[]) => lines.map((l) => ({ id: l.id, quantity: l.quantity }));

function expectations(session: CheckoutSession) {
  const shipped = session.lines.filter((l) => l.requiresShipping);
  const option = session.fulfillmentOptions.find((o) => o.id === session.selectedFulfillmentOptionId);
  const digital = session.lines.filter((l) => !l.requiresShipping);
  return [
    ...(shipped.length
      ? [
          {
            id: 'exp_shipping',
            line_items: refs(shipped),
            method_type: 'shipping' as const,
            destination: session.address ? postalAddress(session.address) : {},
            ...(option ? { description: option.title } : {}),
            fulfillable_on: 'now',
          },
        ]
      : []),
    ...(digital.length
      ? [
          {
            id: 'exp_digital',
            line_items: refs(digital),
            method_type: 'digital' as const,
            destination: {},
            description: 'Delivered digitally',
            fulfillable_on: 'now',
          },
        ]
      : []),
  ];
}

function adjustments(order: OrderFacts) {
  const at = order.updatedAt.toISOString();
  return [
    ...(order.refundedCents > 0
      ? [
          {
            id: 'adj_refund',
            type: 'refund',
            occurred_at: at,
            status: 'completed' as const,
            totals: [{ type: 'total', amount: -order.refundedCents }],
            description: 'Refunded',
          },
        ]
      : []),
    ...(isCanceled(order.status)
      ? [{ id: 'adj_cancellation', type: 'cancellation', occurred_at: at, status: 'completed' as const }]
      : []),
  ];
}

export function presentOrder(
  session: CheckoutSession,
  order: OrderFacts,
  p: { base: string; ucp: Static<typeof UcpOrderMeta> },
): UcpOrder {
  const lines = session.lines;
  const events = isFulfilled(order.status)
    ? [
        {
          id: 'evt_fulfilled',
          occurred_at: order.updatedAt.toISOString(),
          type: 'fulfilled',
          line_items: refs(lines),
          description: 'The business marked the order fulfilled',
        },
      ]
    : [];
  return {
    ucp: p.ucp,
    id: order.id,
    ...(order.sequence !== null ? { label: `ORD-${order.sequence}` } : {}),
    checkout_id: session.id,
    permalink_url: orderPermalink(p.base, order.id),
    currency: session.currency.toUpperCase(),
    line_items: lines.map((l) => orderLine(l, order)),
    fulfillment: { expectations: expectations(session), events },
    adjustments: adjustments(order),
    totals: checkoutTotals(session.totals, shippingChosen(session)),
  };
}
