import { Type } from 'typebox';
import { MAX_TOTAL_CENTS } from '../../core/money.js';
import { PageQueryFields } from '../../core/paging.js';
import { StringEnum } from '../../core/schema.js';
import { TagQueryFields, TagsSchema } from '../../core/tags.js';
import { WarningSchema } from '../partners/index.js';
import { ORDER_PAYMENT_STATUSES } from './tables.js';

const Uuid = Type.String({ format: 'uuid' });
const NullableUuid = Type.Union([Uuid, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

export const CustomerContextSchema = Type.Object(
  {
    segment: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    locale: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Null()])),
    partner: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  },
  {
    additionalProperties: false,
    description: 'Who is buying, for price rules and offers.',
  },
);

export const OrderItemInput = Type.Object(
  {
    productId: Type.String({ format: 'uuid' }),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
    priceCents: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_TOTAL_CENTS,
        description: 'A hint; the resolved price wins.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CreateOrderBody = Type.Object(
  {
    contactId: Type.Optional(Type.String({ format: 'uuid', description: 'Individual buyer.' })),
    organizationId: Type.Optional(
      Type.String({ format: 'uuid', description: 'B2B account (an account id).' }),
    ),
    items: Type.Optional(
      Type.Array(OrderItemInput, {
        maxItems: 100,
        description: 'Default []. Not with cartId.',
      }),
    ),
    totalCents: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_TOTAL_CENTS,
        description:
          'A hint; kept only for orders without items (a differing hint is listed in `rulesApplied.hints`).',
      }),
    ),
    currency: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 10,
        description: "Default USD (with cartId: the cart's).",
      }),
    ),
    customerContext: Type.Optional(CustomerContextSchema),
    journeyId: Type.Optional(Type.String({ format: 'uuid', description: 'Your id for the buyer journey.' })),
    cartId: Type.Optional(Type.String({ format: 'uuid', description: 'Active cart to convert.' })),
    billingAccountId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[a-zA-Z0-9_-]+$',
        description: 'Billing account to invoice (default: the organization’s `externalId`).',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        cartId: '0190b000-0000-7000-8000-000000000006',
        organizationId: '0190b000-0000-7000-8000-000000000005',
      },
      {
        organizationId: '0190b000-0000-7000-8000-000000000005',
        items: [{ productId: '0190b000-0000-7000-8000-000000000003', quantity: 2 }],
      },
    ],
  },
);

export const PatchOrderBody = Type.Object(
  {
    status: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 50,
        description: 'Free-form; usually draft, pending, confirmed, fulfilled or cancelled.',
      }),
    ),
    items: Type.Optional(
      Type.Array(OrderItemInput, {
        maxItems: 100,
        description: 'Replaces the lines; re-priced (a `priceCents` other than the resolved one: 400).',
      }),
    ),
    totalCents: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_TOTAL_CENTS,
        description:
          'Only for orders without lines (else 400 rule `priced`), not once invoiced (400 rule `invoiced`).',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ status: 'fulfilled' }], minProperties: 1 },
);

export const OrderLineSchema = Type.Object({
  productId: Uuid,
  productName: Type.Union([Type.String(), Type.Null()]),
  quantity: Type.Integer(),
  priceCents: Type.Integer({ description: 'Resolved unit price (line total / quantity, rounded down).' }),
  totalCents: Type.Integer({ description: 'Resolved line total: authoritative.' }),
  priced: StringEnum(['engine', 'quote', 'submitted'], {
    description: '`engine`: modeled charges; `quote`: includes a live billing quote for passthrough charges.',
  }),
});

export const OrderPaymentSchema = Type.Object({
  id: Uuid,
  amountCents: Type.Integer(),
  status: Type.String({ description: "The session's status." }),
  refundedCents: Type.Integer(),
  reversed: Type.Boolean({
    description: 'The provider reported a failure after success: not counted as paid.',
  }),
  createdAt: Timestamp,
});

export const OrderSchema = Type.Object({
  id: Uuid,
  tenantId: Uuid,
  orderNumber: Type.String({ description: 'Human-readable, increasing within the tenant (gaps possible).' }),
  status: Type.String(),
  items: Type.Array(OrderLineSchema),
  totalCents: Type.Integer(),
  currency: Type.String(),
  contactId: NullableUuid,
  organizationId: NullableUuid,
  journeyId: NullableUuid,
  cartId: NullableUuid,
  customerContext: Type.Object({}, { additionalProperties: true }),
  promoCode: Type.Union([Type.String(), Type.Null()]),
  discountCents: Type.Integer(),
  billingAccountId: Type.Union([Type.String(), Type.Null()]),
  invoiceId: Type.Union([Type.String(), Type.Null()], {
    description: 'The invoice of the one-time lines, when invoiced.',
  }),
  checkoutSessionId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The agentic checkout session (ACP or UCP) the order was placed from, if any.',
  }),
  shipping: Type.Union(
    [
      Type.Object({
        optionId: Type.String(),
        name: Type.String(),
        amountCents: Type.Integer({ minimum: 0 }),
        address: Type.Optional(
          Type.Union([
            Type.Object({
              name: Type.Optional(Type.String()),
              line1: Type.String(),
              line2: Type.Optional(Type.String()),
              city: Type.String(),
              region: Type.Optional(Type.String()),
              postalCode: Type.String(),
              country: Type.String(),
            }),
            Type.Null(),
          ]),
        ),
      }),
      Type.Null(),
    ],
    { description: 'The shipping option chosen at checkout and its price (included in `totalCents`).' },
  ),
  paymentStatus: StringEnum(ORDER_PAYMENT_STATUSES, {
    description:
      "Kept by the API (unlike the free-form `status`): from the order's invoice when invoiced, else from " +
      'the payment sessions linked to it (`orderId`) and their refunds. `paid`: no payment action is offered ' +
      'and a new session for it is 409 `order_already_paid`.',
  }),
  paidCents: Type.Integer({
    minimum: 0,
    description: "Paid so far: its invoice's amount less balance, or its successful sessions less reversals.",
  }),
  refundedCents: Type.Integer({
    minimum: 0,
    description: 'Given back by succeeded refunds of its sessions.',
  }),
  payments: Type.Optional(
    Type.Array(OrderPaymentSchema, {
      description: 'The payment sessions linked to the order, oldest first (on single-order responses).',
    }),
  ),
  tags: TagsSchema,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const RulesAppliedSchema = Type.Object(
  {
    policyEvaluation: Type.Object({
      allowed: Type.Boolean(),
      evaluations: Type.Array(
        Type.Object({
          policyId: Type.String(),
          policyName: Type.String(),
          policyType: Type.String(),
          result: Type.String(),
        }),
      ),
    }),
    priceRules: Type.Array(
      Type.Object({
        productId: Type.String(),
        id: Type.String(),
        name: Type.String(),
        chargeId: Type.String(),
      }),
    ),
    offers: Type.Array(
      Type.Object({
        productId: Type.String(),
        id: Type.String(),
        name: Type.String(),
        discountCents: Type.Integer(),
      }),
    ),
    promotion: Type.Union([Type.Object({ code: Type.String(), discountCents: Type.Integer() }), Type.Null()]),
    quotes: Type.Array(
      Type.Object({ productId: Type.String(), chargeId: Type.String(), amountCents: Type.Integer() }),
    ),
    hints: Type.Array(
      Type.Object({
        field: Type.String({ description: 'e.g. `items.0.priceCents` or `totalCents`.' }),
        submitted: Type.Integer(),
        resolved: Type.Integer(),
      }),
      { description: 'Client hints that differed from the resolved values (the resolved ones were used).' },
    ),
  },
  { description: 'What decided this order, recorded at creation only.' },
);

export const CreatedOrderSchema = Type.Intersect([
  OrderSchema,
  Type.Object({
    rulesApplied: RulesAppliedSchema,
    warnings: Type.Optional(
      Type.Array(WarningSchema, {
        description:
          'Present when something in the request was taken as given but is suspect: `unknown_partner` when the partner the order is priced with (`customerContext.partner`, or its cart’s: field `cartId`) is no partner of the tenant.',
      }),
    ),
  }),
]);

export const OrderListQuery = Type.Object(
  {
    contactId: Type.Optional(Type.String({ format: 'uuid', description: 'Only orders of this contact.' })),
    organizationId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Only orders of this account (organization).' }),
    ),
    status: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 50,
        description: 'Only orders in this status, e.g. `pending`.',
      }),
    ),
    paymentStatus: Type.Optional(
      StringEnum(ORDER_PAYMENT_STATUSES, { description: 'Only orders in this payment status, e.g. `paid`.' }),
    ),
    number: Type.Optional(
      Type.String({
        pattern: '^(?:[Oo][Rr][Dd]-)?[0-9]{1,15}$',
        maxLength: 19,
        description: 'Order number: `ORD-1042` or `1042`.',
        examples: ['ORD-1042'],
      }),
    ),
    ...TagQueryFields,
    ...PageQueryFields,
  },
  { additionalProperties: false },
);

export const OrderParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Order id.' }),
});
