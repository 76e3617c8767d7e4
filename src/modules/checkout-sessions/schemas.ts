import { Type } from 'typebox';
import { PageQueryFields } from '../../core/paging.js';
import { StringEnum } from '../../core/schema.js';
import { CHECKOUT_STATUSES } from './model.js';

// The checkout session in our own envelope (GET /checkout-sessions/{id}): the one model, as the
// ACP and UCP bindings see it before they write it in their protocol's words.

const Money = Type.Integer({ minimum: 0, description: 'Minor units of the session currency.' });
const Text = Type.String();
const NullableText = Type.Union([Type.String(), Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

const Address = Type.Object({
  name: Type.Optional(Text),
  line1: Text,
  line2: Type.Optional(Text),
  city: Text,
  region: Type.Optional(Text),
  postalCode: Text,
  country: Type.String({ description: 'ISO 3166-1 alpha-2.' }),
});

const Buyer = Type.Object({
  firstName: Type.Optional(Text),
  lastName: Type.Optional(Text),
  email: Type.Optional(Text),
  phone: Type.Optional(Text),
});

const Line = Type.Object({
  id: Text,
  productId: Text,
  name: Text,
  description: NullableText,
  quantity: Type.Integer({ minimum: 1 }),
  unitAmount: Money,
  baseAmount: Money,
  discount: Money,
  subtotal: Money,
  tax: Money,
  total: Money,
  requiresShipping: Type.Boolean(),
});

const Option = Type.Object({
  id: Text,
  type: StringEnum(['shipping', 'digital']),
  title: Text,
  description: NullableText,
  carrier: NullableText,
  earliestDeliveryTime: NullableText,
  latestDeliveryTime: NullableText,
  amount: Money,
});

const Message = Type.Object({
  type: StringEnum(['error', 'warning', 'info']),
  code: Text,
  content: Text,
  target: Type.Optional(Type.Object({ kind: Text }, { additionalProperties: true })),
  resolution: Type.Optional(Text),
});

export const CheckoutSessionSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  protocol: StringEnum(['acp', 'ucp']),
  status: StringEnum(CHECKOUT_STATUSES, {
    description:
      'not_ready (messages say what is missing), ready, in_progress, requires_escalation (the buyer continues at ' +
      'continueUrl), completed (orderId is the order), canceled (also an open session past expiresAt).',
  }),
  currency: Text,
  items: Type.Array(Type.Object({ productId: Text, quantity: Type.Integer() }), {
    description: 'As the agent asked for them.',
  }),
  lines: Type.Array(Line, { description: 'What can be bought, priced now.' }),
  buyer: Type.Union([Buyer, Type.Null()]),
  address: Type.Union([Address, Type.Null()]),
  fulfillmentOptions: Type.Array(Option),
  selectedFulfillmentOptionId: NullableText,
  discountCodes: Type.Array(Text),
  appliedDiscounts: Type.Array(Type.Object({ code: Text, title: Text, amount: Money })),
  rejectedDiscounts: Type.Array(Type.Object({ code: Text, reason: Text })),
  totals: Type.Object({
    itemsBase: Money,
    itemsDiscount: Money,
    subtotal: Money,
    discount: Money,
    fulfillment: Money,
    tax: Money,
    total: Money,
  }),
  messages: Type.Array(Message),
  orderId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  paymentSessionId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  continueUrl: NullableText,
  platform: Type.Object({ webhookUrl: NullableText, profileUrl: NullableText }),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CheckoutSessionParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The checkout session id.' }),
});

export const CheckoutSessionListQuery = Type.Object(
  {
    status: Type.Optional(
      StringEnum(CHECKOUT_STATUSES, {
        description: 'Only sessions in this status as they read now (an expired open one reads `canceled`).',
      }),
    ),
    protocol: Type.Optional(StringEnum(['acp', 'ucp'], { description: 'Only sessions of this protocol.' })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 200,
        description: 'At most this many, newest first (default 50).',
      }),
    ),
    cursor: PageQueryFields.cursor,
  },
  { additionalProperties: false },
);
