import { orderPermalinkUrl, type SellerProfile } from '../../seller/index.js';
import type {
  CheckoutAddress,
  CheckoutBuyer,
  CheckoutLine,
  CheckoutSession,
  CheckoutStatus,
  CheckoutTotals,
  FulfillmentOption,
} from '../index.js';
import { type AcpSettings, sessionCapabilities } from './capabilities.js';
import { jsonPath } from './json-path.js';
import { acpMessage, rejectedDiscounts } from './messages.js';
import { ACP_VERSION } from './schema-parts.js';

// A checkout session as the ACP CheckoutSession (2026-04-17). Pure: what it needs besides the
// session (the seller's policy links, the deployment's URL, the merchant id) is handed in.

/** The seller profile's policy links (null where unset). */
export type SellerLinks = Pick<SellerProfile, 'termsOfUseUrl' | 'privacyPolicyUrl' | 'returnPolicyUrl'>;

export interface AcpView extends AcpSettings {
  seller: SellerLinks | null;
}

const STATUS: Record<CheckoutStatus, string> = {
  not_ready: 'not_ready_for_payment',
  ready: 'ready_for_payment',
  in_progress: 'in_progress',
  // An ACP session never escalates: it is not ready, and its message says why.
  requires_escalation: 'not_ready_for_payment',
  completed: 'completed',
  canceled: 'canceled',
};

const total = (type: string, display_text: string, amount: number) => ({ type, display_text, amount });

function lineItem(line: CheckoutLine) {
  return {
    id: line.id,
    item: { id: line.productId },
    quantity: line.quantity,
    name: line.name,
    ...(line.description ? { description: line.description } : {}),
    unit_amount: line.unitAmount,
    totals: [
      total('items_base_amount', 'Base amount', line.baseAmount),
      total('discount', 'Discount', line.discount),
      total('subtotal', 'Subtotal', line.subtotal),
      total('tax', 'Tax', line.tax),
      total('total', 'Total', line.total),
    ],
  };
}

/**
 * items_base_amount, items_discount (when any), subtotal, fulfillment (once chosen), tax, total.
 * Every discount (offers and codes) is allocated to the lines, so it is all items_discount (the
 * discount extension, section 8.1); ACP's `discount` (order-level, not in the lines) has none.
 */
function sessionTotals(t: CheckoutTotals, optionChosen: boolean) {
  return [
    total('items_base_amount', 'Item(s) total', t.itemsBase),
    ...(t.itemsDiscount > 0 ? [total('items_discount', 'Discounts', t.itemsDiscount)] : []),
    total('subtotal', 'Subtotal', t.subtotal),
    ...(optionChosen || t.fulfillment > 0 ? [total('fulfillment', 'Fulfillment', t.fulfillment)] : []),
    total('tax', 'Tax', t.tax),
    total('total', 'Total', t.total),
  ];
}

function fulfillmentOption(option: FulfillmentOption) {
  return {
    type: option.type,
    id: option.id,
    title: option.title,
    ...(option.description ? { description: option.description } : {}),
    ...(option.type === 'shipping' && option.carrier ? { carrier: option.carrier } : {}),
    ...(option.type === 'shipping' && option.earliestDeliveryTime
      ? { earliest_delivery_time: option.earliestDeliveryTime }
      : {}),
    ...(option.type === 'shipping' && option.latestDeliveryTime
      ? { latest_delivery_time: option.latestDeliveryTime }
      : {}),
    totals: [total('total', option.type === 'shipping' ? 'Shipping' : 'Delivery', option.amount)],
  };
}

/** The chosen option and the items it serves (shipping: those shipped; digital: the others). */
function selectedOptions(session: CheckoutSession) {
  const option = session.fulfillmentOptions.find((o) => o.id === session.selectedFulfillmentOptionId);
  if (!option) return [];
  const shipped = option.type === 'shipping';
  const itemIds = session.lines.filter((l) => l.requiresShipping === shipped).map((l) => l.productId);
  return [{ type: option.type, option_id: option.id, item_ids: itemIds }];
}

const fullName = (buyer: CheckoutBuyer | null) =>
  [buyer?.firstName, buyer?.lastName].filter(Boolean).join(' ') || undefined;

function address(a: CheckoutAddress, buyer: CheckoutBuyer | null) {
  return {
    name: a.name ?? fullName(buyer) ?? '',
    line_one: a.line1,
    ...(a.line2 !== undefined ? { line_two: a.line2 } : {}),
    city: a.city,
    state: a.region ?? '',
    country: a.country,
    postal_code: a.postalCode,
  };
}

/** Contact and address; absent when the session holds neither. */
function fulfillmentDetails(session: CheckoutSession) {
  const { buyer, address: a } = session;
  if (!a && !buyer?.email && !buyer?.phone) return undefined;
  const name = a?.name ?? fullName(buyer);
  return {
    ...(name ? { name } : {}),
    ...(buyer?.phone ? { phone_number: buyer.phone } : {}),
    ...(buyer?.email ? { email: buyer.email } : {}),
    ...(a ? { address: address(a, buyer) } : {}),
  };
}

/** ACP's Buyer requires an email: a buyer without one is not shown. */
function buyerOut(buyer: CheckoutBuyer | null) {
  if (!buyer?.email) return undefined;
  return {
    ...(buyer.firstName ? { first_name: buyer.firstName } : {}),
    ...(buyer.lastName ? { last_name: buyer.lastName } : {}),
    email: buyer.email,
    ...(buyer.phone ? { phone_number: buyer.phone } : {}),
  };
}

function links(seller: SellerLinks | null) {
  if (!seller) return [];
  const all = [
    { type: 'terms_of_use', url: seller.termsOfUseUrl },
    { type: 'privacy_policy', url: seller.privacyPolicyUrl },
    { type: 'return_policy', url: seller.returnPolicyUrl },
  ];
  return all.filter((l): l is { type: string; url: string } => Boolean(l.url));
}

/**
 * The discount extension's `discounts`: the codes as sent, what applied (and where), what did not.
 * The lines' discounts are per line, not per code (offers count too): they are one code's
 * allocations only when it is the one discount of the session.
 */
function discounts(session: CheckoutSession) {
  const [only, ...others] = session.appliedDiscounts;
  const allocated = only !== undefined && others.length === 0 && only.amount === session.totals.itemsDiscount;
  return {
    codes: session.discountCodes,
    applied: session.appliedDiscounts.map((d) => ({
      id: `di_${d.code.toLowerCase()}`,
      code: d.code,
      coupon: { id: d.code, name: d.title },
      amount: d.amount,
      automatic: false,
      ...(allocated
        ? {
            method: 'across' as const,
            allocations: session.lines
              .map((l, i) => ({ path: jsonPath('line_items', i), amount: l.discount }))
              .filter((a) => a.amount > 0),
          }
        : {}),
    })),
    rejected: rejectedDiscounts(session),
  };
}

export function presentSession(
  session: CheckoutSession,
  view: AcpView,
  agentInterventions?: readonly string[],
) {
  const details = fulfillmentDetails(session);
  const buyer = buyerOut(session.buyer);
  return {
    id: session.id,
    protocol: { version: ACP_VERSION },
    capabilities: sessionCapabilities(view, agentInterventions),
    ...(buyer ? { buyer } : {}),
    status: STATUS[session.status],
    currency: session.currency.toLowerCase(),
    line_items: session.lines.map(lineItem),
    ...(details ? { fulfillment_details: details } : {}),
    fulfillment_options: session.fulfillmentOptions.map(fulfillmentOption),
    selected_fulfillment_options: selectedOptions(session),
    totals: sessionTotals(session.totals, session.selectedFulfillmentOptionId !== null),
    messages: session.messages.map((m) => acpMessage(m, session)),
    links: links(view.seller),
    discounts: discounts(session),
    ...(session.continueUrl ? { continue_url: session.continueUrl } : {}),
    created_at: session.createdAt,
    updated_at: session.updatedAt,
    expires_at: session.expiresAt,
    ...(session.orderId
      ? {
          order: {
            id: session.orderId,
            checkout_session_id: session.id,
            // The same URL the ACP order webhooks carry.
            permalink_url: orderPermalinkUrl(view.publicBaseUrl, session.orderId),
          },
        }
      : {}),
  };
}

export type AcpSession = ReturnType<typeof presentSession>;
