import { Type } from 'typebox';
import { MAX_AMOUNT_CENTS } from '../../core/money.js';
import { Int4, NullOrAbsent, Present, StringEnum, When } from '../../core/schema.js';
import {
  Cents,
  ChargeModelSchema,
  ClientId,
  Currency,
  ONE_TIER_MODELS,
  OptionalText,
  TierOut,
  TiersSchema,
  Timestamp,
  Uuid,
} from './schema-parts.js';

// Price rules, offers and promotions.

const DimensionFields = {
  segment: OptionalText(100, 'Customer segment this applies to; null = any.'),
  locale: OptionalText(20, 'Locale this applies to; null = any.'),
  partner: OptionalText(255, 'Partner this applies to; null = any.'),
};

export const PriceRuleSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  productId: Uuid,
  chargeId: Uuid,
  segment: Type.Union([Type.String(), Type.Null()]),
  locale: Type.Union([Type.String(), Type.Null()]),
  partner: Type.Union([Type.String(), Type.Null()]),
  chargeModel: Type.Union([ChargeModelSchema, Type.Null()], {
    description: 'Replaces the charge’s model; null keeps it.',
  }),
  tiers: Type.Array(TierOut),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** A price rule applies in a context: at least one of segment, locale, partner (not null). */
const SOME_CONTEXT = {
  anyOf: ['segment', 'locale', 'partner'].map((f) => Present({ [f]: 'string' })),
};

export const PriceRuleCreate = Type.Object(
  {
    id: ClientId,
    name: Type.String({ minLength: 1, maxLength: 255, description: 'Name of the price rule.' }),
    productId: Type.String({ format: 'uuid', description: 'The product whose charge the rule prices.' }),
    chargeId: Type.String({ format: 'uuid', description: 'A modeled charge of the product.' }),
    ...DimensionFields,
    chargeModel: Type.Optional(
      Type.Union([ChargeModelSchema, Type.Null()], { description: 'Price model; default the charge’s own.' }),
    ),
    tiers: { ...TiersSchema, description: 'The rule’s tiers, replacing the charge’s.' },
  },
  {
    additionalProperties: false,
    allOf: [SOME_CONTEXT, ONE_TIER_MODELS],
    examples: [
      {
        name: 'Partner price',
        productId: '0190b000-0000-7000-8000-000000000003',
        chargeId: '0190b000-0000-7000-8000-000000000004',
        partner: 'reseller-1',
        tiers: [{ upTo: null, unitPriceCents: 2000 }],
      },
    ],
  },
);

export const PriceRuleUpdate = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'Name of the price rule.' }),
    ),
    ...DimensionFields,
    chargeModel: Type.Optional(
      Type.Union([ChargeModelSchema, Type.Null()], {
        description: 'Price model; null for the charge’s own.',
      }),
    ),
    tiers: Type.Optional({ ...TiersSchema, description: 'The rule’s tiers, replacing the charge’s.' }),
  },
  {
    additionalProperties: false,
    allOf: [ONE_TIER_MODELS],
    examples: [{ tiers: [{ upTo: null, unitPriceCents: 1900 }] }],
    minProperties: 1,
  },
);

/** Create: each discount type takes its own amount, and not the other's. */
const DISCOUNT_AMOUNTS = [
  When('discountType', ['percent'], {
    allOf: [Present({ percentOff: 'integer' }), NullOrAbsent('amountOffCents')],
  }),
  When('discountType', ['amount'], {
    allOf: [Present({ amountOffCents: 'integer' }), NullOrAbsent('percentOff')],
  }),
];
/** Update: a new discount type may keep the stored amount, but never takes the other type's. */
const DISCOUNT_AMOUNTS_CHANGED = [
  When('discountType', ['percent'], NullOrAbsent('amountOffCents')),
  When('discountType', ['amount'], NullOrAbsent('percentOff')),
];

const DiscountFields = {
  discountType: StringEnum(['percent', 'amount'], {
    description: '`percent` takes `percentOff`; `amount` takes `amountOffCents`.',
  }),
  percentOff: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 100 }), Type.Null()], { description: 'For `percent`.' }),
  ),
  amountOffCents: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_CENTS }), Type.Null()], {
      description: 'For `amount`.',
    }),
  ),
};

export const OfferSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  productId: Uuid,
  discountType: StringEnum(['percent', 'amount']),
  percentOff: Type.Union([Type.Integer(), Type.Null()]),
  amountOffCents: Type.Union([Type.Integer(), Type.Null()]),
  segment: Type.Union([Type.String(), Type.Null()]),
  partner: Type.Union([Type.String(), Type.Null()]),
  startsAt: Timestamp,
  endsAt: Type.Union([Timestamp, Type.Null()]),
  active: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const offerFields = {
  id: ClientId,
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Name of the offer.' }),
  productId: Type.String({ format: 'uuid', description: 'The product the offer discounts.' }),
  ...DiscountFields,
  segment: DimensionFields.segment,
  partner: DimensionFields.partner,
  startsAt: Type.String({ format: 'date-time', description: 'Start of the window (inclusive).' }),
  endsAt: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'End (exclusive); null = open.',
    }),
  ),
  active: Type.Optional(Type.Boolean({ description: 'Inactive offers do not apply (default true).' })),
};

export const OfferCreate = Type.Object(offerFields, {
  additionalProperties: false,
  allOf: DISCOUNT_AMOUNTS,
  examples: [
    {
      name: 'Launch week',
      productId: '0190b000-0000-7000-8000-000000000003',
      discountType: 'percent',
      percentOff: 20,
      startsAt: '2026-03-01T00:00:00Z',
      endsAt: '2026-03-08T00:00:00Z',
    },
  ],
});
export const OfferUpdate = Type.Object(
  {
    name: Type.Optional(offerFields.name),
    discountType: Type.Optional(offerFields.discountType),
    percentOff: offerFields.percentOff,
    amountOffCents: offerFields.amountOffCents,
    segment: offerFields.segment,
    partner: offerFields.partner,
    startsAt: Type.Optional(offerFields.startsAt),
    endsAt: offerFields.endsAt,
    active: offerFields.active,
  },
  {
    additionalProperties: false,
    allOf: DISCOUNT_AMOUNTS_CHANGED,
    examples: [{ endsAt: '2026-03-15T00:00:00Z' }],
    minProperties: 1,
  },
);

export const PromotionSchema = Type.Object({
  id: Uuid,
  code: Type.String({ description: 'Upper-case; matched case-insensitively.' }),
  name: Type.String(),
  discountType: StringEnum(['percent', 'amount']),
  percentOff: Type.Union([Type.Integer(), Type.Null()]),
  amountOffCents: Type.Union([Type.Integer(), Type.Null()]),
  currency: Type.Union([Type.String(), Type.Null()]),
  minSubtotalCents: Type.Integer(),
  startsAt: Timestamp,
  endsAt: Type.Union([Timestamp, Type.Null()]),
  usageLimit: Type.Union([Type.Integer(), Type.Null()]),
  timesRedeemed: Type.Integer(),
  active: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const promotionFields = {
  id: ClientId,
  code: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'The code buyers enter; stored upper-case, matched case-insensitively.',
  }),
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Name of the promotion.' }),
  ...DiscountFields,
  currency: Type.Optional(
    Type.Union([Currency, Type.Null()], { description: 'Required for `amount` promotions.' }),
  ),
  minSubtotalCents: Type.Optional(Cents('Cart subtotal needed for the code to apply (default 0).')),
  startsAt: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now.' })),
  endsAt: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'End (exclusive); null = open.',
    }),
  ),
  usageLimit: Type.Optional(
    Type.Union([Int4({ minimum: 1 }), Type.Null()], {
      description: 'Orders it may be used on; null = no limit.',
    }),
  ),
  active: Type.Optional(Type.Boolean({ description: 'Inactive codes are refused (default true).' })),
};

export const PromotionCreate = Type.Object(promotionFields, {
  additionalProperties: false,
  // An amount off is in one currency.
  allOf: [...DISCOUNT_AMOUNTS, When('discountType', ['amount'], Present({ currency: 'string' }))],
  examples: [
    {
      code: 'SPRING10',
      name: 'Spring 10% off',
      discountType: 'percent',
      percentOff: 10,
      minSubtotalCents: 5000,
      usageLimit: 100,
    },
  ],
});
export const PromotionUpdate = Type.Object(
  {
    name: Type.Optional(promotionFields.name),
    discountType: Type.Optional(promotionFields.discountType),
    percentOff: promotionFields.percentOff,
    amountOffCents: promotionFields.amountOffCents,
    currency: promotionFields.currency,
    minSubtotalCents: promotionFields.minSubtotalCents,
    startsAt: promotionFields.startsAt,
    endsAt: promotionFields.endsAt,
    usageLimit: promotionFields.usageLimit,
    active: promotionFields.active,
  },
  {
    additionalProperties: false,
    allOf: DISCOUNT_AMOUNTS_CHANGED,
    examples: [{ active: false }],
    minProperties: 1,
  },
);
