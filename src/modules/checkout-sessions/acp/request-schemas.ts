import { Type } from 'typebox';
import { StringEnum } from '../../../core/schema.js';
import { ACP_VERSION, AddressIn, Amount, BuyerIn, FulfillmentDetailsIn, Text } from './schema-parts.js';

// ACP checkout requests (CheckoutSessionCreateRequest, UpdateRequest, CompleteRequest,
// CancelSessionRequest). An unknown product or a zero quantity passes the schema on purpose: the
// session answers them as messages[] errors, as the protocol asks.

export const AcpHeaders = Type.Object({
  'api-version': Type.Optional(
    Type.String({ description: `The ACP version the agent speaks; required. We answer ${ACP_VERSION}.` }),
  ),
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Required on every POST. The same key and body within 24 h replays the first answer ' +
        '(`Idempotent-Replayed: true`); the same key with another body is 422 idempotency_conflict.',
    }),
  ),
  'request-id': Type.Optional(Type.String({ maxLength: 255, description: 'Echoed in the answer.' })),
});

export const SessionParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 255, description: 'The checkout session id.' }),
});

const ItemIn = Type.Object(
  {
    id: Text(255, 'The product id (our catalog’s). An unknown id is answered as a message, not refused.', {
      minLength: 1,
    }),
    quantity: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 10_000,
        description: 'Units (default 1). 0 is answered as a message on the session, not refused.',
      }),
    ),
    name: Type.Optional(Text(255, 'Ignored: the catalog names the product.')),
    unit_amount: Type.Optional(Amount('Ignored: the catalog prices the product.')),
  },
  { additionalProperties: false },
);

const Items = (description: string) => Type.Array(ItemIn, { minItems: 1, maxItems: 100, description });

const itemFields = {
  line_items: Type.Optional(Items('The items to buy; replaces the session’s items.')),
  items: Type.Optional(Items('Older name of `line_items` (ACP before 2026-04-17); send one of the two.')),
};

const DiscountsIn = Type.Object(
  {
    codes: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: 20,
      description: 'Discount codes, case-insensitive; replaces the codes sent before; [] clears them.',
    }),
  },
  { additionalProperties: false },
);

const discountFields = {
  discounts: Type.Optional(DiscountsIn),
  coupons: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: 20,
      description: 'Deprecated alias of `discounts.codes` (which wins when both are sent).',
    }),
  ),
};

/** The agent's capabilities: read for the intersection we answer; unknown values are ignored. */
const CapabilitiesIn = Type.Object(
  {
    interventions: Type.Optional(
      Type.Object(
        {
          supported: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 20 })),
        },
        { additionalProperties: true },
      ),
    ),
    extensions: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 20 })),
  },
  { additionalProperties: true, description: 'The agent’s capabilities (interventions it handles).' },
);

const informational = {
  locale: Type.Optional(Text(35, 'Accepted and not used: answers are in English.')),
  timezone: Type.Optional(Text(64, 'Accepted and not used.')),
  metadata: Type.Optional(
    Type.Object({}, { additionalProperties: true, description: 'Accepted, not kept.' }),
  ),
  affiliate_attribution: Type.Optional(
    Type.Object({}, { additionalProperties: true, description: 'Accepted, not kept.' }),
  ),
};

const createExample = {
  currency: 'usd',
  line_items: [{ id: '0190b000-0000-7000-8000-00000000a001', quantity: 2 }],
  capabilities: { interventions: { supported: [] } },
  fulfillment_details: {
    name: 'Jane Doe',
    email: 'jane@example.com',
    address: {
      name: 'Jane Doe',
      line_one: '1234 Chat Road',
      city: 'San Francisco',
      state: 'CA',
      country: 'US',
      postal_code: '94131',
    },
  },
  discounts: { codes: ['SAVE10'] },
};

export const CreateSessionRequest = Type.Object(
  {
    ...itemFields,
    currency: Type.Optional(
      Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217, e.g. `usd`; default the seller’s.' }),
    ),
    buyer: Type.Optional(BuyerIn),
    fulfillment_details: Type.Optional(FulfillmentDetailsIn),
    capabilities: Type.Optional(CapabilitiesIn),
    ...discountFields,
    ...informational,
  },
  {
    additionalProperties: false,
    anyOf: [{ required: ['line_items'] }, { required: ['items'] }],
    examples: [createExample],
  },
);

const SelectedOptionIn = Type.Object(
  {
    type: Type.Optional(StringEnum(['shipping', 'digital', 'pickup', 'local_delivery'])),
    option_id: Text(255, 'An id of the session’s `fulfillment_options`.', { minLength: 1 }),
    item_ids: Type.Optional(
      Type.Array(Type.String({ maxLength: 255 }), {
        maxItems: 100,
        description: 'Informative: one option serves every item it can (see `selected_fulfillment_options`).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateSessionRequest = Type.Object(
  {
    ...itemFields,
    buyer: Type.Optional(Type.Union([BuyerIn, Type.Null()], { description: 'null clears the buyer.' })),
    fulfillment_details: Type.Optional(
      Type.Union([FulfillmentDetailsIn, Type.Null()], { description: 'null clears the address.' }),
    ),
    selected_fulfillment_options: Type.Optional(
      Type.Array(SelectedOptionIn, {
        maxItems: 10,
        description:
          'The fulfillment option to use: one option per session (entries may repeat it); [] clears the choice.',
      }),
    ),
    ...discountFields,
  },
  {
    additionalProperties: false,
    examples: [
      {
        selected_fulfillment_options: [{ type: 'shipping', option_id: 'ship_express', item_ids: ['prod_1'] }],
      },
      { discounts: { codes: ['SAVE10'] } },
    ],
  },
);

const PaymentDataIn = Type.Object(
  {
    handler_id: Text(64, 'A handler of `capabilities.payment.handlers`: `acp_delegated_card`.', {
      minLength: 1,
    }),
    instrument: Type.Object(
      {
        type: StringEnum(['card']),
        credential: Type.Object(
          {
            type: StringEnum(['spt']),
            token: Text(255, 'The `id` POST /agentic_commerce/delegate_payment answered (`vt_...`).', {
              minLength: 1,
            }),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
    billing_address: Type.Optional(AddressIn),
  },
  { additionalProperties: false },
);

export const CompleteSessionRequest = Type.Object(
  {
    buyer: Type.Optional(BuyerIn),
    payment_data: PaymentDataIn,
    authentication_result: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'Not used: sessions never ask for 3DS.' }),
    ),
    affiliate_attribution: informational.affiliate_attribution,
    risk_signals: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Not kept.' })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        buyer: { first_name: 'Jane', last_name: 'Doe', email: 'jane@example.com' },
        payment_data: {
          handler_id: 'acp_delegated_card',
          instrument: { type: 'card', credential: { type: 'spt', token: 'vt_01J8Z3WXYZ9ABC' } },
        },
      },
    ],
  },
);

export const CancelSessionRequest = Type.Object(
  {
    intent_trace: Type.Optional(
      Type.Object(
        {
          reason_code: Text(64, 'Why the buyer left, e.g. `shipping_cost`; accepted and not kept.'),
          trace_summary: Type.Optional(Text(500, 'A short summary; not kept.')),
          metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, examples: [{ intent_trace: { reason_code: 'shipping_cost' } }] },
);
