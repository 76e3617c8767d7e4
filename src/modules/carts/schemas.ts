import { Type } from 'typebox';
import { StringEnum } from '../../core/schema.js';

export const MAX_LINE_QUANTITY = 100_000;
/** Lines a cart can be created with in one call (catalog actions send one). */
export const MAX_CREATE_ITEMS = 50;

const Timestamp = Type.String({ format: 'date-time' });
const Uuid = Type.String({ format: 'uuid' });
const NullableString = (description?: string) =>
  Type.Union([Type.String(), Type.Null()], description ? { description } : {});

/**
 * An optional text field that may also be null, as `type: [string, null]` rather than a union, so a
 * bad value gets one error naming the rule instead of one per branch.
 */
const NullableText = (maxLength: number, description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], minLength: 1, maxLength, description });
const NullableUuid = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'uuid', description });

const CustomerContextInput = Type.Object(
  {
    segment: Type.Optional(NullableText(100, 'Customer segment, e.g. `smb`.')),
    locale: Type.Optional(NullableText(20, 'Customer locale, e.g. `de-DE`.')),
    partner: Type.Optional(NullableText(255, 'Partner the sale goes through.')),
  },
  {
    additionalProperties: false,
    description: 'Who is buying, for every line’s price rules and offers. Fixed for the cart’s life.',
  },
);

export const CartItemAdd = Type.Object(
  {
    productId: Type.String({
      format: 'uuid',
      description: 'An active product priced in the cart’s currency.',
    }),
    quantity: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_LINE_QUANTITY,
        default: 1,
        description: 'Units to add.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ productId: '0190b000-0000-7000-8000-000000000003', quantity: 2 }],
  },
);

/** A line of a new cart: addCartItem's body, described there (MCP tools/list stays small). */
const CartLine = Type.Object(
  {
    productId: Type.String({ format: 'uuid' }),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LINE_QUANTITY })),
  },
  { additionalProperties: false },
);

export const CartCreate = Type.Object(
  {
    sessionId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Your id for the shopping session, e.g. a conversation id; generated (`sess_...`) when absent.',
      }),
    ),
    currency: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{3}$',
        default: 'USD',
        description: 'ISO 4217 code. Only products priced in it can be added.',
      }),
    ),
    customerContext: Type.Optional(CustomerContextInput),
    contactId: Type.Optional(NullableUuid('The individual buyer, if known.')),
    organizationId: Type.Optional(
      NullableUuid('The buying account: one of this tenant’s accounts, else 400.'),
    ),
    items: Type.Optional(
      Type.Array(CartLine, {
        maxItems: MAX_CREATE_ITEMS,
        description: 'Lines to start with.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ currency: 'USD', sessionId: 'conversation-42' }] },
);

export const CartIdParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Cart id.' }),
});

export const CartItemParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Cart id.' }),
  itemId: Type.String({ format: 'uuid', description: 'Line id, from the cart’s `items`.' }),
});

export const CartPromoApply = Type.Object(
  {
    code: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The promotion code, matched case-insensitively.',
    }),
  },
  { additionalProperties: false, examples: [{ code: 'SPRING10' }] },
);

const ChargeModel = StringEnum(['flat_fee', 'per_unit', 'tiered', 'volume']);

export const CartItemSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Line item id; remove the line with DELETE on it.' }),
  productId: Uuid,
  productName: Type.String(),
  productType: Type.String({ description: '`one_time`, `subscription` or `add_on`.' }),
  quantity: Type.Integer(),
  unitPriceCents: Type.Integer({ description: 'totalCents / quantity rounded down (informative).' }),
  totalCents: Type.Integer({
    description: 'The line after price rules and offers: authoritative. Passthrough charges excluded.',
  }),
  listCents: Type.Integer({ description: 'The line after price rules, before offers.' }),
  charges: Type.Array(
    Type.Object({
      chargeId: Type.String(),
      name: Type.String(),
      kind: StringEnum(['modeled', 'passthrough']),
      chargeModel: Type.Union([ChargeModel, Type.Null()]),
      amountCents: Type.Union([Type.Integer(), Type.Null()], {
        description:
          'This charge for the quantity after price rules; null for a passthrough charge (priced at checkout).',
      }),
    }),
    { description: 'One entry per charge of the product.' },
  ),
  appliedOffers: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), discountCents: Type.Integer() }),
    { description: 'Offers taken off this line (listCents - totalCents in all).' },
  ),
  appliedPriceRules: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), chargeId: Type.String() }),
    { description: 'Price rules that replaced a charge’s price for the cart’s customerContext.' },
  ),
  requiresQuote: Type.Boolean({
    description:
      'True when the product has a passthrough charge: the billing system prices it at checkout; it is not in totalCents.',
  }),
});

export const CartPromoSchema = Type.Union(
  [
    Type.Object({
      code: Type.String({ description: 'The code as stored (upper case).' }),
      promotionId: Uuid,
      discountCents: Type.Integer({ description: 'Taken off the cart total; 0 when it does not apply.' }),
      applies: Type.Boolean({
        description:
          'Whether the promotion takes effect on the cart as it is now. A code that stops applying after a change ' +
          '(e.g. an item removed below its minimum) stays on the cart with `applies: false` and applies again ' +
          'when the cart qualifies.',
      }),
      reason: Type.Union(
        [
          StringEnum([
            'inactive',
            'not_started',
            'expired',
            'exhausted',
            'minimum_not_met',
            'currency_mismatch',
            'unknown',
          ]),
          Type.Null(),
        ],
        { description: 'Why it does not apply; null when it applies.' },
      ),
    }),
    Type.Null(),
  ],
  { description: 'The promotion code on the cart, or null.' },
);

export const CartSchema = Type.Object({
  id: Uuid,
  tenantId: Uuid,
  sessionId: Type.String(),
  status: StringEnum(['active', 'checked_out'], {
    description: '`active` until an order is created from it (POST /orders with cartId), then `checked_out`.',
  }),
  currency: Type.String(),
  customerContext: Type.Object({
    segment: NullableString(),
    locale: NullableString(),
    partner: NullableString(),
  }),
  contactId: Type.Union([Uuid, Type.Null()]),
  organizationId: Type.Union([Uuid, Type.Null()]),
  items: Type.Array(CartItemSchema, { description: 'Line items, in the order they were first added.' }),
  subtotalCents: Type.Integer({
    description: 'Sum of the lines’ listCents (after price rules, before offers).',
  }),
  discountCents: Type.Integer({ description: 'Offers on the lines plus the promotion.' }),
  totalCents: Type.Integer({
    description:
      'subtotalCents - discountCents, never below 0. Excludes passthrough charges (see requiresQuote).',
  }),
  promo: CartPromoSchema,
  requiresQuote: Type.Boolean({
    description:
      'True when a line has a passthrough charge: those charges are priced by the billing system at checkout, so ' +
      'the order total will be higher than totalCents.',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
