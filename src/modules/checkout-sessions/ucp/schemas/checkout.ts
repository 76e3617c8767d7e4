import { Type } from 'typebox';
import { StringEnum } from '../../../../core/schema.js';
import {
  Buyer,
  Link,
  MAX_LINE_QUANTITY,
  Message,
  PostalAddress,
  Text,
  Totals,
  UcpCheckoutMeta,
  URL_MAX,
} from './common.js';

// The checkout resource (shopping/checkout.json with the discount and fulfillment extensions):
// what create and update take, what complete takes, and what every checkout operation answers.

const open = { additionalProperties: true } as const;

const ItemRef = Type.Object(
  {
    id: Type.String({
      format: 'uuid',
      description: 'The product id (our catalog id). `title`, `price` and `image_url` are ignored if sent.',
    }),
  },
  open,
);

const LineItemRequest = Type.Object(
  {
    id: Type.Optional(Text('The line id from a previous answer (`li_<product id>`); ignored.', 100)),
    item: ItemRef,
    quantity: Type.Integer({ minimum: 1, maximum: MAX_LINE_QUANTITY }),
  },
  open,
);

const Destination = Type.Object(
  { ...PostalAddress.properties, id: Type.Optional(Text('A destination id from a previous answer.', 100)) },
  open,
);

const GroupRequest = Type.Object(
  {
    id: Type.Optional(Text('The group id from a previous answer.', 100)),
    selected_option_id: Type.Optional(
      Type.Union([Text('An option id from `options` of the answer.', 200), Type.Null()]),
    ),
  },
  open,
);

const MethodRequest = Type.Object(
  {
    id: Type.Optional(Text('The method id from a previous answer.', 100)),
    type: Type.Optional(StringEnum(['shipping', 'pickup'])),
    line_item_ids: Type.Optional(Type.Array(Text('A line id.', 100), { maxItems: 1000 })),
    destinations: Type.Optional(Type.Array(Destination, { maxItems: 20 })),
    selected_destination_id: Type.Optional(Type.Union([Text('A destination id.', 100), Type.Null()])),
    groups: Type.Optional(Type.Array(GroupRequest, { maxItems: 20 })),
  },
  open,
);

const FulfillmentRequest = Type.Object(
  {
    methods: Type.Optional(
      Type.Array(MethodRequest, {
        maxItems: 10,
        description:
          'One `shipping` method: its destination is the address; a group `selected_option_id` chooses the option.',
      }),
    ),
  },
  open,
);

const DiscountsRequest = Type.Object(
  {
    codes: Type.Optional(
      Type.Array(Text('A discount code (case-insensitive).', 100), {
        maxItems: 20,
        description: 'Replaces the codes the session had; `[]` clears them.',
      }),
    ),
  },
  open,
);

const checkoutFields = {
  line_items: Type.Array(LineItemRequest, {
    minItems: 1,
    maxItems: 100,
    description: 'What to buy: `item.id` (product id) and `quantity`.',
  }),
  buyer: Type.Optional(Buyer),
  fulfillment: Type.Optional(FulfillmentRequest),
  discounts: Type.Optional(DiscountsRequest),
  context: Type.Optional(Type.Object({}, open)),
  signals: Type.Optional(Type.Object({}, open)),
  attribution: Type.Optional(Type.Object({}, open)),
};

export const CheckoutCreateBody = Type.Object(checkoutFields, {
  ...open,
  description:
    'A new checkout. Response-only fields (`id`, `status`, `totals`, `links`, prices, `ucp`) are ignored if sent.',
  examples: [
    {
      line_items: [{ item: { id: '0190b000-0000-7000-8000-000000000003' }, quantity: 2 }],
      buyer: { email: 'jane@example.com', first_name: 'Jane', last_name: 'Doe' },
    },
  ],
});

export const CheckoutUpdateBody = Type.Object(checkoutFields, {
  ...open,
  description:
    'The whole checkout again (full replacement): what is left out is cleared (buyer, address, fulfillment choice, codes).',
  examples: [
    {
      line_items: [
        {
          id: 'li_0190b000-0000-7000-8000-000000000003',
          item: { id: '0190b000-0000-7000-8000-000000000003' },
          quantity: 2,
        },
      ],
      buyer: { email: 'jane@example.com' },
      fulfillment: {
        methods: [
          {
            type: 'shipping',
            destinations: [
              {
                street_address: '123 Main St',
                address_locality: 'Springfield',
                address_region: 'IL',
                postal_code: '62701',
                address_country: 'US',
              },
            ],
          },
        ],
      },
      discounts: { codes: ['SUMMER10'] },
    },
  ],
});

const Credential = Type.Object(
  {
    type: Text('The credential type, e.g. `token`.', 100),
    token: Text(
      'The token the handler produced (sandbox_card: success_token, fail_token or escalate_token). Never echoed.',
      4096,
    ),
  },
  open,
);

const Instrument = Type.Object(
  {
    id: Text('The platform’s id of this instrument.', 200),
    handler_id: Text('The `id` of an advertised payment handler (`sandbox_card`).', 200),
    type: Text('The instrument type, e.g. `card`.', 100),
    selected: Type.Optional(Type.Boolean()),
    display: Type.Optional(Type.Object({}, open)),
    billing_address: Type.Optional(PostalAddress),
    credential: Credential,
  },
  open,
);

export const CheckoutCompleteBody = Type.Object(
  {
    payment: Type.Object(
      {
        instruments: Type.Array(Instrument, {
          minItems: 1,
          maxItems: 10,
          description: 'The instrument paying: the one `selected`, or the only one.',
        }),
      },
      open,
    ),
    buyer: Type.Optional(Buyer),
    signals: Type.Optional(Type.Object({}, open)),
  },
  {
    ...open,
    description: 'How to pay: one instrument of an advertised handler, with its credential token.',
    examples: [
      {
        payment: {
          instruments: [
            {
              id: 'instr_1',
              handler_id: 'sandbox_card',
              type: 'card',
              selected: true,
              display: { brand: 'visa', last_digits: '4242' },
              credential: { type: 'token', token: 'success_token' },
            },
          ],
        },
      },
    ],
  },
);

export const CheckoutParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: 'The checkout session id.' }),
});

// --- The answer -----------------------------------------------------------------------------

const LineItem = Type.Object({
  id: Type.String({ description: '`li_<product id>`: stable within the session.' }),
  item: Type.Object({
    id: Type.String({ description: 'The product id.' }),
    title: Type.String(),
    price: Type.Integer({ minimum: 0, description: 'Unit price, minor units.' }),
  }),
  quantity: Type.Integer({ minimum: 1 }),
  totals: Totals,
});

const Option = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  carrier: Type.Optional(Type.String()),
  earliest_fulfillment_time: Type.Optional(Type.String({ format: 'date-time' })),
  latest_fulfillment_time: Type.Optional(Type.String({ format: 'date-time' })),
  totals: Totals,
});

const Method = Type.Object({
  id: Type.String(),
  type: Type.Literal('shipping'),
  line_item_ids: Type.Array(Type.String()),
  selected_destination_id: Type.Union([Type.String(), Type.Null()]),
  destinations: Type.Array(Type.Object({ ...PostalAddress.properties, id: Type.String() })),
  groups: Type.Array(
    Type.Object({
      id: Type.String(),
      line_item_ids: Type.Array(Type.String()),
      selected_option_id: Type.Union([Type.String(), Type.Null()]),
      options: Type.Array(Option),
    }),
  ),
});

const AppliedDiscount = Type.Object({
  code: Type.Optional(Type.String({ description: 'The code; absent for an automatic discount (an offer).' })),
  title: Type.String(),
  amount: Type.Integer({ minimum: 0, description: 'What it takes off, minor units (positive).' }),
  automatic: Type.Boolean(),
  method: Type.Optional(StringEnum(['each', 'across'])),
  allocations: Type.Optional(
    Type.Array(Type.Object({ path: Type.String(), amount: Type.Integer({ minimum: 0 }) })),
  ),
});

export const CheckoutResponse = Type.Object({
  ucp: UcpCheckoutMeta,
  id: Type.String(),
  status: StringEnum([
    'incomplete',
    'requires_escalation',
    'ready_for_complete',
    'complete_in_progress',
    'completed',
    'canceled',
  ]),
  currency: Type.String({ description: 'ISO 4217, upper case.' }),
  line_items: Type.Array(LineItem),
  buyer: Type.Optional(Buyer),
  fulfillment: Type.Optional(Type.Object({ methods: Type.Array(Method) })),
  discounts: Type.Optional(
    Type.Object({ codes: Type.Array(Type.String()), applied: Type.Array(AppliedDiscount) }),
  ),
  totals: Totals,
  messages: Type.Array(Message),
  links: Type.Array(Link),
  expires_at: Type.String({ format: 'date-time' }),
  continue_url: Type.Optional(Type.String({ format: 'uri', maxLength: URL_MAX })),
  order: Type.Optional(
    Type.Object({
      id: Type.String(),
      label: Type.Optional(Type.String()),
      permalink_url: Type.String({ format: 'uri' }),
    }),
  ),
});
