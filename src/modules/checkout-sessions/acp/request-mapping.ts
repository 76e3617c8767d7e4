import type { Static } from 'typebox';
import { AppError } from '../../../core/errors.js';
import type {
  CheckoutAddress,
  CheckoutBuyer,
  CheckoutChange,
  CheckoutPayment,
  CheckoutSession,
  createCheckout,
  RequestedItem,
} from '../index.js';
import type {
  CompleteSessionRequest,
  CreateSessionRequest,
  UpdateSessionRequest,
} from './request-schemas.js';
import type { AddressIn, BuyerIn, FulfillmentDetailsIn } from './schema-parts.js';

// ACP requests as changes of the one checkout-session model. Absent fields leave the session as
// it is, null clears (the protocol's idempotency rules tell the two apart as well).

type Address = Static<typeof AddressIn>;
type Buyer = Static<typeof BuyerIn>;
type Details = Static<typeof FulfillmentDetailsIn>;
type Create = Static<typeof CreateSessionRequest>;
type Update = Static<typeof UpdateSessionRequest>;
type Complete = Static<typeof CompleteSessionRequest>;
type CreateCheckoutInput = Parameters<typeof createCheckout>[2];

const invalid = (field: string, message: string) =>
  new AppError('validation_failed', message, [{ field, rule: 'acp', message }]);

export function addressOf(a: Address): CheckoutAddress {
  return {
    ...(a.name ? { name: a.name } : {}),
    line1: a.line_one,
    ...(a.line_two !== undefined ? { line2: a.line_two } : {}),
    city: a.city,
    ...(a.state ? { region: a.state } : {}),
    postalCode: a.postal_code,
    country: a.country.toUpperCase(),
  };
}

/** First and last names, from `full_name` when they are not given (split at its first space). */
function names(b: Buyer): Pick<CheckoutBuyer, 'firstName' | 'lastName'> {
  if (b.first_name || b.last_name || !b.full_name) return { firstName: b.first_name, lastName: b.last_name };
  const [first, ...rest] = b.full_name.trim().split(/\s+/);
  return { firstName: first, lastName: rest.length ? rest.join(' ') : undefined };
}

/**
 * The buyer a request leaves: its `buyer` (replacing the one before), else the one before; the
 * fulfillment contact's email and phone fill what the buyer does not say.
 */
function buyerOf(
  sent: Buyer | null | undefined,
  details: Details | null | undefined,
  before: CheckoutBuyer | null,
): CheckoutBuyer | null | undefined {
  const contact = { email: details?.email, phone: details?.phone_number };
  if (sent === null) return null;
  if (sent === undefined && contact.email === undefined && contact.phone === undefined) return undefined;
  const base: CheckoutBuyer = sent
    ? { ...names(sent), email: sent.email, phone: sent.phone_number }
    : { ...(before ?? {}) };
  const merged = { ...base, email: base.email ?? contact.email, phone: base.phone ?? contact.phone };
  return Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as CheckoutBuyer;
}

/** The address of `fulfillment_details` (its contact name when the address has none). */
function addressChange(details: Details | null | undefined): CheckoutAddress | null | undefined {
  if (details === null) return null;
  if (!details?.address) return undefined;
  const address = addressOf(details.address);
  return address.name || !details.name ? address : { ...address, name: details.name };
}

function itemsOf(body: {
  line_items?: Create['line_items'];
  items?: Create['items'];
}): RequestedItem[] | undefined {
  if (body.line_items && body.items)
    throw invalid('items', 'Send `line_items` or its older name `items`, not both');
  const items = body.line_items ?? body.items;
  return items?.map((i) => ({ productId: i.id, quantity: i.quantity ?? 1 }));
}

const codesOf = (body: Pick<Create, 'discounts' | 'coupons'>) => body.discounts?.codes ?? body.coupons;

/** One option per session: every entry must name the same option; [] clears the choice. */
function selectedOptionOf(selected: Update['selected_fulfillment_options']): string | null | undefined {
  if (selected === undefined) return undefined;
  const [first, ...rest] = selected;
  if (!first) return null;
  const other = rest.findIndex((s) => s.option_id !== first.option_id);
  if (other >= 0)
    throw invalid(
      `selected_fulfillment_options.${other + 1}.option_id`,
      'One fulfillment option serves the whole session: every entry must name the same option_id',
    );
  return first.option_id;
}

/** Only the fields the request holds: the model reads an absent key as "unchanged". */
function defined(change: CheckoutChange): CheckoutChange {
  return Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) as CheckoutChange;
}

export function createInput(body: Create): CreateCheckoutInput {
  return {
    protocol: 'acp',
    ...(body.currency ? { currency: body.currency.toUpperCase() } : {}),
    change: defined({
      items: itemsOf(body),
      buyer: buyerOf(body.buyer, body.fulfillment_details, null),
      address: addressChange(body.fulfillment_details),
      discountCodes: codesOf(body),
    }),
  };
}

/** An update; `before` is the session as it is (its buyer is merged with contact fields). */
export function updateChange(body: Update, before: CheckoutSession | null): CheckoutChange {
  return defined({
    items: itemsOf(body),
    buyer: buyerOf(body.buyer, body.fulfillment_details, before?.buyer ?? null),
    address: addressChange(body.fulfillment_details),
    selectedFulfillmentOptionId: selectedOptionOf(body.selected_fulfillment_options),
    discountCodes: codesOf(body),
  });
}

/** Whether an update needs the session as it is: only to merge contact fields into its buyer. */
export const needsCurrentBuyer = (body: Update) =>
  body.buyer === undefined &&
  body.fulfillment_details !== null &&
  body.fulfillment_details !== undefined &&
  (body.fulfillment_details.email !== undefined || body.fulfillment_details.phone_number !== undefined);

/** A completion; `baseUrl` is this deployment's, where the order's links point. */
export function completeInput(id: string, body: Complete, baseUrl: string) {
  const payment: CheckoutPayment = {
    handlerId: body.payment_data.handler_id,
    token: body.payment_data.instrument.credential.token,
    ...(body.payment_data.billing_address
      ? { billingAddress: addressOf(body.payment_data.billing_address) }
      : {}),
  };
  const buyer = body.buyer ? buyerOf(body.buyer, undefined, null) : undefined;
  return { id, payment, baseUrl, ...(buyer ? { buyer } : {}) };
}
