import { Type } from 'typebox';
import { MAX_AMOUNT_CENTS } from '../../../core/money.js';
import { StringEnum } from '../../../core/schema.js';

// The pieces ACP requests and responses share (Agentic Commerce Protocol, version 2026-04-17):
// addresses, buyers, fulfillment details. Field names are the protocol's (snake_case).

export const ACP_VERSION = '2026-04-17';
/** Every version we answer, oldest first (the discovery document's order). */
export const ACP_SUPPORTED_VERSIONS = [ACP_VERSION] as const;

export const Text = (maxLength: number, description: string, extra: object = {}) =>
  Type.String({ maxLength, description, ...extra });

/** A bounded amount in minor units (cents for usd). */
export const Amount = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_AMOUNT_CENTS, description });

/** Free-form string map (`metadata`), bounded. */
export const StringMap = (description: string) =>
  Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), {
    maxProperties: 50,
    description,
  });

const addressFields = {
  name: Type.Optional(Text(256, 'Recipient name.')),
  line_one: Text(256, 'Street address.', { minLength: 1 }),
  line_two: Type.Optional(Text(256, 'Apartment, suite, etc.; may be empty.')),
  city: Text(128, 'City.', { minLength: 1 }),
  state: Type.Optional(Text(64, 'State, province or region code (ISO 3166-2 where one exists).')),
  country: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2, e.g. `US`.' }),
  postal_code: Text(20, 'Postal or ZIP code.', { minLength: 1 }),
};

const addressExample = {
  name: 'Jane Doe',
  line_one: '1234 Chat Road',
  line_two: '',
  city: 'San Francisco',
  state: 'CA',
  country: 'US',
  postal_code: '94131',
};

/** An address as an agent sends it (`name` and `state` may be left out where a country has none). */
export const AddressIn = Type.Object(addressFields, {
  additionalProperties: false,
  examples: [addressExample],
});

/** An address as we answer it: every field the protocol requires, empty where we hold nothing. */
export const AddressOut = Type.Object({
  name: Type.String(),
  line_one: Type.String(),
  line_two: Type.Optional(Type.String()),
  city: Type.String(),
  state: Type.String(),
  country: Type.String({ description: 'ISO 3166-1 alpha-2, upper case.' }),
  postal_code: Type.String(),
});

const buyerFields = {
  first_name: Type.Optional(Text(128, 'First name.')),
  last_name: Type.Optional(Text(128, 'Last name.')),
  full_name: Type.Optional(Text(256, 'Full name; split into first and last when those are absent.')),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'Email address.' })),
  phone_number: Type.Optional(Text(32, 'Phone number, E.164 recommended (`+15551234567`).')),
};

/** The buyer as an agent sends it; the protocol's account fields are accepted and not kept. */
export const BuyerIn = Type.Object(
  {
    ...buyerFields,
    customer_id: Type.Optional(Text(255, 'Accepted and not kept: we do not link buyers to accounts.')),
    account_type: Type.Optional(StringEnum(['guest', 'registered', 'business'])),
    authentication_status: Type.Optional(StringEnum(['authenticated', 'guest', 'requires_signin'])),
  },
  {
    additionalProperties: false,
    examples: [
      { first_name: 'Jane', last_name: 'Doe', email: 'jane@example.com', phone_number: '+15551234567' },
    ],
  },
);

export const BuyerOut = Type.Object({
  first_name: Type.Optional(Type.String()),
  last_name: Type.Optional(Type.String()),
  email: Type.String(),
  phone_number: Type.Optional(Type.String()),
});

/** Where and to whom the items go: the contact and the shipping address. */
export const FulfillmentDetailsIn = Type.Object(
  {
    name: Type.Optional(Text(256, 'Contact name; the address name when the address has none.')),
    phone_number: Type.Optional(Text(32, 'Contact phone number (the buyer’s when the buyer has none).')),
    email: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 254,
        description: 'Contact email (the buyer’s when unset).',
      }),
    ),
    address: Type.Optional(AddressIn),
  },
  {
    additionalProperties: false,
    examples: [
      { name: 'Jane Doe', phone_number: '+15551234567', email: 'jane@example.com', address: addressExample },
    ],
  },
);

export const FulfillmentDetailsOut = Type.Object({
  name: Type.Optional(Type.String()),
  phone_number: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  address: Type.Optional(AddressOut),
});

/** The protocol's flat error (Error), for every refusal of an ACP route. */
export const AcpErrorSchema = Type.Object(
  {
    type: StringEnum(['invalid_request', 'rate_limit_exceeded', 'processing_error', 'service_unavailable'], {
      description:
        '`rate_limit_exceeded` on delegate_payment only (checkout answers 429 as invalid_request).',
    }),
    code: Type.String({
      description: 'What went wrong, e.g. `missing_api_version`, `idempotency_conflict`.',
    }),
    message: Type.String(),
    param: Type.Optional(Type.String({ description: 'RFC 9535 JSONPath of the field at fault.' })),
    supported_versions: Type.Optional(Type.Array(Type.String())),
  },
  {
    description: 'ACP Error: a flat object, no envelope.',
    examples: [
      {
        type: 'invalid_request',
        code: 'unsupported_api_version',
        message: 'API-Version 2025-01-01 is not supported; send one of: 2026-04-17',
        supported_versions: [ACP_VERSION],
      },
    ],
  },
);

/** The error answers an ACP route can give, by status. */
export const acpErrorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, AcpErrorSchema]));

export const ACP_WRITE_ERRORS = [400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503];
