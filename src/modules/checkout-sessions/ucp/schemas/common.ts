import { type TSchema, Type } from 'typebox';
import { StringEnum } from '../../../../core/schema.js';

// Shapes UCP's checkout and order share (source/schemas/shopping/types/*.json at 2026-04-08),
// written as TypeBox for our routes: requests are open objects (UCP schemas allow unknown fields,
// and a client may echo response-only fields back), with bounded strings and integers.

export const TEXT_MAX = 1000;
export const URL_MAX = 2048;
export const MAX_LINE_QUANTITY = 100_000;

export const Text = (description: string, maxLength = TEXT_MAX) => Type.String({ maxLength, description });

const open = { additionalProperties: true } as const;

export const PostalAddress = Type.Object(
  {
    street_address: Type.Optional(Text('The street address (line 1).')),
    extended_address: Type.Optional(Text('Apartment, suite, c/o (line 2).')),
    address_locality: Type.Optional(Text('City or locality.')),
    address_region: Type.Optional(Text('State, province or region.')),
    postal_code: Type.Optional(Text('Postal code.', 64)),
    address_country: Type.Optional(Text('ISO 3166-1 alpha-2 country code, e.g. `US`.', 64)),
    first_name: Type.Optional(Text('First name of the contact at the address.')),
    last_name: Type.Optional(Text('Last name of the contact at the address.')),
    phone_number: Type.Optional(Text('Phone number of the contact (E.164).', 64)),
  },
  { ...open, description: 'A postal address (UCP postal_address).' },
);

export const Buyer = Type.Object(
  {
    first_name: Type.Optional(Text('First name of the buyer.')),
    last_name: Type.Optional(Text('Last name of the buyer.')),
    email: Type.Optional(Text('Email of the buyer; the order confirmation goes there.', 320)),
    phone_number: Type.Optional(Text('Phone number (E.164).', 64)),
  },
  { ...open, description: 'The buyer (UCP buyer).' },
);

/** A totals entry: signed integer amount in minor units; discounts negative. */
export const Total = Type.Object(
  {
    type: Type.String({
      description: 'subtotal, items_discount, discount, fulfillment, tax or total.',
    }),
    display_text: Type.Optional(Type.String({ description: 'The label to show.' })),
    amount: Type.Integer({ description: 'Minor units; negative for discounts.' }),
  },
  { description: 'A cost breakdown entry (UCP total).' },
);

export const Totals = Type.Array(Total, {
  description:
    'In rendering order; exactly one `subtotal` and one `total`. The entries other than `total` add up to it.',
});

export const Link = Type.Object({
  type: Type.String({ description: 'terms_of_service, privacy_policy, refund_policy, support...' }),
  url: Type.String({ format: 'uri' }),
  title: Type.Optional(Type.String()),
});

const Path = Type.Optional(
  Type.String({ description: 'RFC 9535 JSONPath to what the message is about, e.g. `$.line_items[0]`.' }),
);

export const SEVERITIES = [
  'recoverable',
  'requires_buyer_input',
  'requires_buyer_review',
  'unrecoverable',
] as const;

export const MessageError = Type.Object({
  type: Type.Literal('error'),
  code: Type.String(),
  path: Path,
  content: Type.String(),
  severity: StringEnum(SEVERITIES, {
    description:
      'recoverable: fix the inputs and retry; requires_buyer_input / requires_buyer_review: hand off through `continue_url`; unrecoverable: no resource to act on.',
  }),
});

export const MessageWarning = Type.Object({
  type: Type.Literal('warning'),
  code: Type.String(),
  path: Path,
  content: Type.String({ description: 'Must be shown to the buyer.' }),
});

export const MessageInfo = Type.Object({
  type: Type.Literal('info'),
  code: Type.Optional(Type.String()),
  path: Path,
  content: Type.String(),
});

export const Message = Type.Union([MessageError, MessageWarning, MessageInfo]);

/** A capability in a response: the negotiated version. */
const ActiveCapability = Type.Object({ version: Type.String() });

const Capabilities = Type.Record(Type.String(), Type.Array(ActiveCapability), {
  description: 'The negotiated capabilities relevant to this response, by name.',
});

const PaymentHandler = Type.Object({
  id: Type.String(),
  version: Type.String(),
  spec: Type.Optional(Type.String()),
  schema: Type.Optional(Type.String()),
  available_instruments: Type.Optional(
    Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
  ),
  config: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

export const PaymentHandlers = Type.Record(Type.String(), Type.Array(PaymentHandler), {
  description: 'Payment handlers by name; a completion names one by `id` as `handler_id`.',
});

/** The `ucp` block of a checkout response. */
export const UcpCheckoutMeta = Type.Object({
  version: Type.String({ description: 'The protocol version the request was processed with.' }),
  status: Type.Literal('success'),
  capabilities: Capabilities,
  payment_handlers: PaymentHandlers,
});

/** The `ucp` block of an order response or webhook. */
export const UcpOrderMeta = Type.Object({
  version: Type.String(),
  status: Type.Literal('success'),
  capabilities: Capabilities,
});

/**
 * UCP's error response: no resource, only why (`ucp.status: "error"`). Also what our protocol
 * errors answer (validation, authentication, limits, negotiation), with their HTTP status.
 */
export const ErrorResponse = Type.Object(
  {
    ucp: Type.Object({
      version: Type.String(),
      status: Type.Literal('error'),
      capabilities: Type.Optional(Capabilities),
    }),
    messages: Type.Array(MessageError, { minItems: 1 }),
    continue_url: Type.Optional(Type.String({ format: 'uri' })),
  },
  { description: 'UCP error_response: why the operation produced no resource.' },
);

/** A response schema with its description and one example (our OpenAPI conventions). */
export const Answer = <T extends TSchema>(schema: T, description: string, example: unknown): T =>
  ({ ...schema, description, examples: [example] }) as T;
