// The one checkout-session model both agentic protocols (ACP, UCP) are bindings of. A binding
// maps its request to a `CheckoutChange` and a `CheckoutSession` to its response; the state
// machine, prices, totals, messages and the order a completion makes are decided here only.

export type CheckoutProtocol = 'acp' | 'ucp';

/**
 * The session's state. ACP names them not_ready_for_payment, ready_for_payment, in_progress,
 * authentication_required, completed, canceled; UCP incomplete, ready_for_complete,
 * complete_in_progress, requires_escalation, completed, canceled.
 */
export type CheckoutStatus =
  | 'not_ready'
  | 'ready'
  | 'in_progress'
  | 'requires_escalation'
  | 'completed'
  | 'canceled';

export const CHECKOUT_STATUSES: readonly CheckoutStatus[] = [
  'not_ready',
  'ready',
  'in_progress',
  'requires_escalation',
  'completed',
  'canceled',
];

export interface CheckoutAddress {
  name?: string | undefined;
  line1: string;
  line2?: string | undefined;
  city: string;
  /** State, province or region. */
  region?: string | undefined;
  postalCode: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
}

export interface CheckoutBuyer {
  firstName?: string | undefined;
  lastName?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
}

/** An item as the agent asked for it: the protocol's item id is our product id. */
export interface RequestedItem {
  productId: string;
  quantity: number;
}

/** A priced line (only items that can be bought; the others are messages). */
export interface CheckoutLine {
  /** Stable per product within a session: `li_<productId>`. */
  id: string;
  productId: string;
  name: string;
  description: string | null;
  quantity: number;
  unitAmount: number;
  /** unitAmount x quantity. */
  baseAmount: number;
  /** This line's share of the applied discounts. */
  discount: number;
  /** baseAmount - discount. */
  subtotal: number;
  tax: number;
  total: number;
  requiresShipping: boolean;
}

export interface FulfillmentOption {
  id: string;
  type: 'shipping' | 'digital';
  title: string;
  description: string | null;
  carrier: string | null;
  earliestDeliveryTime: string | null;
  latestDeliveryTime: string | null;
  amount: number;
}

/** What a message is about; each binding writes it as its own JSONPath. */
export type MessageTarget =
  | { kind: 'item'; index: number; field?: 'id' | 'quantity' }
  | { kind: 'address'; field?: 'country' | 'postalCode' | 'line1' | 'city' }
  | { kind: 'buyer'; field?: 'email' }
  | { kind: 'fulfillment' }
  | { kind: 'discount'; code: string }
  | { kind: 'payment' };

export type MessageCode =
  | 'missing'
  | 'invalid'
  | 'out_of_stock'
  | 'payment_declined'
  | 'requires_escalation'
  | 'discount_code_invalid';

export interface CheckoutMessage {
  type: 'error' | 'warning' | 'info';
  code: MessageCode;
  content: string;
  target?: MessageTarget;
  resolution?: 'recoverable' | 'requires_buyer_input' | 'requires_buyer_review';
}

export interface AppliedDiscount {
  code: string;
  title: string;
  amount: number;
}

export interface CheckoutTotals {
  itemsBase: number;
  /** Every discount (offers and codes), allocated to the lines. */
  itemsDiscount: number;
  /** itemsBase - itemsDiscount. */
  subtotal: number;
  /** The part of itemsDiscount that codes gave (already in subtotal: shown, not subtracted again). */
  discount: number;
  fulfillment: number;
  tax: number;
  total: number;
}

/** The session as both bindings present it. Money in minor units of `currency`. */
export interface CheckoutSession {
  id: string;
  protocol: CheckoutProtocol;
  status: CheckoutStatus;
  /** Upper case, as our carts keep it (USD); ACP writes it lower case. */
  currency: string;
  items: RequestedItem[];
  lines: CheckoutLine[];
  buyer: CheckoutBuyer | null;
  address: CheckoutAddress | null;
  fulfillmentOptions: FulfillmentOption[];
  selectedFulfillmentOptionId: string | null;
  /** As sent, in order; the ones that do not apply stay here with a message. */
  discountCodes: string[];
  appliedDiscounts: AppliedDiscount[];
  /** Codes sent that do not apply, and why (unknown, expired, minimum_not_met...). */
  rejectedDiscounts: { code: string; reason: string }[];
  totals: CheckoutTotals;
  messages: CheckoutMessage[];
  orderId: string | null;
  paymentSessionId: string | null;
  /** Where a buyer finishes what an agent cannot (requires_escalation). */
  continueUrl: string | null;
  /** What the platform told us at create (UCP: its profile's order webhook URL). */
  platform: { webhookUrl: string | null; profileUrl: string | null };
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * A change asked of a session. Absent: unchanged; null: cleared. `items` and `discountCodes`
 * replace what the session had.
 */
export interface CheckoutChange {
  items?: RequestedItem[];
  buyer?: CheckoutBuyer | null;
  address?: CheckoutAddress | null;
  selectedFulfillmentOptionId?: string | null;
  discountCodes?: string[];
}

/** How a completion pays. The handler decides; the token is never stored or echoed. */
export interface CheckoutPayment {
  /** A handler the session advertises: `acp_delegated_card` or `sandbox_card`. */
  handlerId: string;
  token: string;
  billingAddress?: CheckoutAddress | undefined;
}

export const PAYMENT_HANDLERS = {
  /** ACP: a token from POST /agentic_commerce/delegate_payment, bound to an allowance. */
  acpDelegatedCard: 'acp_delegated_card',
  /** UCP: the sandbox card handler (success_token, fail_token, escalate_token). */
  sandboxCard: 'sandbox_card',
} as const;

/**
 * A card delegated by an agent platform (ACP delegate_payment): kept as a fingerprint and its
 * last four digits only; the number and CVC are never stored.
 */
export interface DelegatedCard {
  number: string;
  expMonth?: string | undefined;
  expYear?: string | undefined;
  name?: string | undefined;
  /** visa, mastercard, amex, discover... when the platform says. */
  brand?: string | undefined;
}

/** What a delegated token may pay: once, at most `maxAmount` of `currency`, for one session, until `expiresAt`. */
export interface PaymentAllowance {
  reason: 'one_time';
  maxAmount: number;
  currency: string;
  checkoutSessionId: string;
  merchantId: string;
  expiresAt: string;
}

export interface DelegatePaymentInput {
  card: DelegatedCard;
  allowance: PaymentAllowance;
  billingAddress?: CheckoutAddress | undefined;
  metadata?: Record<string, string> | undefined;
}

/** The token handed back once (`id`, `vt_...`): only its hash is kept. */
export interface DelegatedToken {
  id: string;
  createdAt: string;
  metadata: Record<string, string>;
}
