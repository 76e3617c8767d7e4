import type { Static } from 'typebox';
import { validationFailed } from '../../../core/errors.js';
import type { CheckoutAddress, CheckoutBuyer, CheckoutChange, CheckoutPayment } from '../model.js';
import type { CheckoutCompleteBody, CheckoutCreateBody } from './schemas/checkout.js';
import type { Buyer, PostalAddress } from './schemas/common.js';

// A UCP checkout request as a change of the model: only the fields a platform may write are read
// (ids, statuses, totals, prices and links it echoes are ignored), and the discount and
// fulfillment fields only when that extension was negotiated.

type CheckoutBody = Static<typeof CheckoutCreateBody>;
type Address = Static<typeof PostalAddress>;
type Fulfillment = NonNullable<CheckoutBody['fulfillment']>;

/** Which extensions this request was negotiated with. */
export interface ActiveExtensions {
  discount: boolean;
  fulfillment: boolean;
}

const present = (s: string | undefined) => (s === undefined || s.trim() === '' ? undefined : s.trim());

/** The buyer's fields that were sent (none left as `undefined`: a completion merges them). */
export function buyerOf(buyer: Static<typeof Buyer>): CheckoutBuyer {
  const fields = {
    firstName: present(buyer.first_name),
    lastName: present(buyer.last_name),
    email: present(buyer.email),
    phone: present(buyer.phone_number),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** A postal address as the model keeps it; what is missing stays empty for the model to name. */
export function addressOf(a: Address): CheckoutAddress {
  const name = [present(a.first_name), present(a.last_name)].filter(Boolean).join(' ');
  return {
    name: name === '' ? undefined : name,
    line1: present(a.street_address) ?? '',
    line2: present(a.extended_address),
    city: present(a.address_locality) ?? '',
    region: present(a.address_region),
    postalCode: present(a.postal_code) ?? '',
    country: (present(a.address_country) ?? '').toUpperCase(),
  };
}

/**
 * The shipping method's chosen destination (its `selected_destination_id`, else its first) and
 * the option chosen in its groups. A shipping method sent without destinations (only choosing an
 * option, as the spec's update examples do) keeps the address the session has; a request with no
 * shipping method has neither.
 */
function fulfillmentChoice(fulfillment: Fulfillment, current: CheckoutAddress | null) {
  const method = fulfillment.methods?.find((m) => m.type === undefined || m.type === 'shipping');
  const destinations = method?.destinations ?? [];
  const chosen =
    destinations.find((d) => d.id !== undefined && d.id === method?.selected_destination_id) ??
    destinations[0];
  const option = method?.groups?.map((g) => g.selected_option_id).find((id) => typeof id === 'string');
  return {
    address: chosen ? addressOf(chosen) : method ? current : null,
    selectedFulfillmentOptionId: option ?? null,
  };
}

/**
 * The change a create or update (full replacement) asks for; `current` is the session's address
 * before an update.
 */
export function changeOf(
  body: CheckoutBody,
  active: ActiveExtensions,
  current: CheckoutAddress | null = null,
): CheckoutChange {
  const change: CheckoutChange = {
    items: body.line_items.map((line) => ({ productId: line.item.id, quantity: line.quantity })),
  };
  if (body.buyer) change.buyer = buyerOf(body.buyer);
  if (active.fulfillment && body.fulfillment)
    Object.assign(change, fulfillmentChoice(body.fulfillment, current));
  if (active.discount && body.discounts?.codes !== undefined)
    change.discountCodes = [...body.discounts.codes];
  return change;
}

/** The instrument paying (the one `selected`, or the only one) as the model's payment. */
export function paymentOf(body: Static<typeof CheckoutCompleteBody>): CheckoutPayment {
  const instruments = body.payment.instruments;
  const selected = instruments.filter((i) => i.selected === true);
  const chosen = selected.length === 1 ? selected[0] : instruments.length === 1 ? instruments[0] : undefined;
  if (!chosen) {
    throw validationFailed(
      'payment.instruments',
      'selected',
      'payment.instruments must hold one instrument, or mark exactly one `selected: true`',
    );
  }
  return {
    handlerId: chosen.handler_id,
    token: chosen.credential.token,
    billingAddress: chosen.billing_address ? addressOf(chosen.billing_address) : undefined,
  };
}
