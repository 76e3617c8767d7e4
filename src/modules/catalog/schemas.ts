import { Type } from 'typebox';
import { StringEnum } from '../../core/schema.js';

export const CHARGE_MODELS = ['flat_fee', 'per_unit', 'tiered', 'volume'] as const;
export const PRODUCT_TYPES = ['one_time', 'subscription', 'add_on'] as const;

const Timestamp = Type.String({ format: 'date-time' });
const Uuid = Type.String({ format: 'uuid' });
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. `USD`.' });
const Cents = (description: string) => Type.Integer({ minimum: 0, maximum: 1_000_000_000, description });
/** Optional client-chosen id on create (for seed files and retries); 409 when taken. */
const ClientId = Type.Optional(
  Type.String({
    format: 'uuid',
    description: 'Optional id to create the resource under; 409 if it is taken.',
  }),
);

const OptionalText = (max: number, description?: string) =>
  Type.Optional(
    Type.Union(
      [Type.String({ minLength: 1, maxLength: max }), Type.Null()],
      description ? { description } : {},
    ),
  );

export const ChargeModelSchema = StringEnum(CHARGE_MODELS, {
  description:
    '`flat_fee`: one price whatever the quantity; `per_unit`: quantity x unit price (+ flat); `tiered`: graduated, ' +
    'each tier prices the units inside it; `volume`: every unit at the price of the tier the quantity falls in.',
});

export const TierSchema = Type.Object(
  {
    upTo: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'Inclusive upper bound in units; null for the last, unbounded tier.',
    }),
    unitPriceCents: Cents('Price per unit in this tier, minor units.'),
    flatPriceCents: Type.Optional(Cents('Fixed amount added once when the tier is used (default 0).')),
  },
  { additionalProperties: false },
);

export const TiersSchema = Type.Array(TierSchema, { minItems: 1, maxItems: 20 });

const TierOut = Type.Object({
  upTo: Type.Union([Type.Integer(), Type.Null()]),
  unitPriceCents: Type.Integer(),
  flatPriceCents: Type.Integer(),
});

export const ChargeSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  kind: StringEnum(['modeled', 'passthrough'], {
    description: '`passthrough` charges are priced live by the billing adapter (`quoteCart`).',
  }),
  chargeModel: Type.Union([ChargeModelSchema, Type.Null()]),
  tiers: Type.Array(TierOut),
});

export const ChargeInput = Type.Object(
  {
    id: Type.Optional(
      Type.String({ format: 'uuid', description: 'Keep a charge’s id across updates; new if omitted.' }),
    ),
    name: Type.String({ minLength: 1, maxLength: 255 }),
    kind: Type.Optional(StringEnum(['modeled', 'passthrough'], { description: 'Default `modeled`.' })),
    chargeModel: Type.Optional(ChargeModelSchema),
    tiers: Type.Optional(TiersSchema),
  },
  { additionalProperties: false },
);

const EntitlementValue = Type.Union([Type.Boolean(), Type.Number(), Type.Null()]);
export const EntitlementsSchema = Type.Record(Type.String(), EntitlementValue, {
  description:
    'Feature key (lower-case, `^[a-z][a-z0-9_.-]{0,99}$`) -> `true`/`false` (a flag), a number (a limit), or `null` (unlimited).',
  propertyNames: { pattern: '^[a-z][a-z0-9_.-]{0,99}$' },
  maxProperties: 100,
});

export const ProductSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  type: StringEnum(PRODUCT_TYPES),
  family: Type.Union([Type.String(), Type.Null()], {
    description: 'Plans of one family can be changed into each other.',
  }),
  rank: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'Order within the family: a higher rank is an upgrade, a lower one a downgrade, equal is lateral.',
  }),
  billingInterval: Type.Union([StringEnum(['month', 'year']), Type.Null()]),
  currency: Type.String(),
  active: Type.Boolean(),
  entitlements: Type.Record(Type.String(), EntitlementValue),
  charges: Type.Array(ChargeSchema),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const productFields = {
  id: ClientId,
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: OptionalText(2000),
  type: StringEnum(PRODUCT_TYPES, {
    description: '`subscription` products need a `billingInterval`; `one_time` products must not have one.',
  }),
  family: OptionalText(100, 'Plan family, for plan changes.'),
  rank: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000 }), Type.Null()])),
  billingInterval: Type.Optional(Type.Union([StringEnum(['month', 'year']), Type.Null()])),
  currency: Currency,
  active: Type.Optional(
    Type.Boolean({ description: 'Inactive products are hidden from the catalog (default true).' }),
  ),
  entitlements: Type.Optional(EntitlementsSchema),
  charges: Type.Array(ChargeInput, { minItems: 1, maxItems: 20 }),
};

export const ProductCreate = Type.Object(productFields, {
  additionalProperties: false,
  examples: [
    {
      name: 'Pro',
      type: 'subscription',
      family: 'core',
      rank: 2,
      billingInterval: 'month',
      currency: 'USD',
      entitlements: { seats: 10, sso: true },
      charges: [{ name: 'Seats', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 1000 }] }],
    },
  ],
});
export const ProductUpdate = Type.Object(
  {
    name: Type.Optional(productFields.name),
    description: productFields.description,
    type: Type.Optional(productFields.type),
    family: productFields.family,
    rank: productFields.rank,
    billingInterval: productFields.billingInterval,
    currency: Type.Optional(productFields.currency),
    active: productFields.active,
    entitlements: productFields.entitlements,
    charges: Type.Optional(productFields.charges),
  },
  {
    additionalProperties: false,
    examples: [{ description: 'For growing teams', active: true }],
    minProperties: 1,
  },
);

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

export const PriceRuleCreate = Type.Object(
  {
    id: ClientId,
    name: Type.String({ minLength: 1, maxLength: 255 }),
    productId: Type.String({ format: 'uuid' }),
    chargeId: Type.String({ format: 'uuid', description: 'A modeled charge of the product.' }),
    ...DimensionFields,
    chargeModel: Type.Optional(Type.Union([ChargeModelSchema, Type.Null()])),
    tiers: TiersSchema,
  },
  {
    additionalProperties: false,
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
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ...DimensionFields,
    chargeModel: Type.Optional(Type.Union([ChargeModelSchema, Type.Null()])),
    tiers: Type.Optional(TiersSchema),
  },
  {
    additionalProperties: false,
    examples: [{ tiers: [{ upTo: null, unitPriceCents: 1900 }] }],
    minProperties: 1,
  },
);

const DiscountFields = {
  discountType: StringEnum(['percent', 'amount']),
  percentOff: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 100 }), Type.Null()], { description: 'For `percent`.' }),
  ),
  amountOffCents: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()], {
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
  name: Type.String({ minLength: 1, maxLength: 255 }),
  productId: Type.String({ format: 'uuid' }),
  ...DiscountFields,
  segment: DimensionFields.segment,
  partner: DimensionFields.partner,
  startsAt: Type.String({ format: 'date-time', description: 'Start of the window (inclusive).' }),
  endsAt: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'End (exclusive); null = open.',
    }),
  ),
  active: Type.Optional(Type.Boolean()),
};

export const OfferCreate = Type.Object(offerFields, {
  additionalProperties: false,
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
  { additionalProperties: false, examples: [{ endsAt: '2026-03-15T00:00:00Z' }], minProperties: 1 },
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
  code: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  ...DiscountFields,
  currency: Type.Optional(
    Type.Union([Currency, Type.Null()], { description: 'Required for `amount` promotions.' }),
  ),
  minSubtotalCents: Type.Optional(Cents('Cart subtotal needed for the code to apply (default 0).')),
  startsAt: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now.' })),
  endsAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
  usageLimit: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'Orders it may be used on; null = no limit.',
    }),
  ),
  active: Type.Optional(Type.Boolean()),
};

export const PromotionCreate = Type.Object(promotionFields, {
  additionalProperties: false,
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
  { additionalProperties: false, examples: [{ active: false }], minProperties: 1 },
);

export const PlanLinkSchema = Type.Object({
  id: Uuid,
  sourceProductId: Uuid,
  sourceChargeId: Uuid,
  targetProductId: Uuid,
  targetChargeId: Uuid,
  targetField: Type.String(),
  explanation: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const planLinkFields = {
  id: ClientId,
  sourceProductId: Type.String({ format: 'uuid' }),
  sourceChargeId: Type.String({ format: 'uuid', description: 'A charge of the source product.' }),
  targetProductId: Type.String({ format: 'uuid' }),
  targetChargeId: Type.String({ format: 'uuid', description: 'A charge of the target product.' }),
  targetField: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'What the link carries over on a plan change, e.g. `quantity` or `unitPriceCents`.',
  }),
  explanation: Type.String({ minLength: 1, maxLength: 1000 }),
};

export const PlanLinkCreate = Type.Object(planLinkFields, {
  additionalProperties: false,
  examples: [
    {
      sourceProductId: '0190b000-0000-7000-8000-000000000003',
      sourceChargeId: '0190b000-0000-7000-8000-000000000004',
      targetProductId: '0190b000-0000-7000-8000-0000000000a2',
      targetChargeId: '0190b000-0000-7000-8000-0000000000a3',
      targetField: 'quantity',
      explanation: 'Seats carry over to the annual plan.',
    },
  ],
});
export const PlanLinkUpdate = Type.Object(
  {
    targetField: Type.Optional(planLinkFields.targetField),
    explanation: Type.Optional(planLinkFields.explanation),
  },
  {
    additionalProperties: false,
    examples: [{ explanation: 'Seats carry over one for one.' }],
    minProperties: 1,
  },
);

const DIRECTIONS = ['upgrade', 'downgrade', 'lateral'] as const;

export const PlanChangeRuleSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  family: Type.Union([Type.String(), Type.Null()]),
  fromProductId: Type.Union([Uuid, Type.Null()]),
  toProductId: Type.Union([Uuid, Type.Null()]),
  direction: Type.Union([StringEnum(DIRECTIONS), Type.Null()]),
  changeTiming: StringEnum(['immediate', 'end_of_period']),
  prorationType: StringEnum(['prorated', 'none', 'full_credit']),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const planChangeRuleFields = {
  id: ClientId,
  name: Type.String({ minLength: 1, maxLength: 255 }),
  family: OptionalText(100, 'Family the rule covers (with an optional direction); or give a product pair.'),
  fromProductId: Type.Optional(Type.Union([Type.String({ format: 'uuid' }), Type.Null()])),
  toProductId: Type.Optional(Type.Union([Type.String({ format: 'uuid' }), Type.Null()])),
  direction: Type.Optional(Type.Union([StringEnum(DIRECTIONS), Type.Null()])),
  changeTiming: StringEnum(['immediate', 'end_of_period']),
  prorationType: StringEnum(['prorated', 'none', 'full_credit']),
};

export const PlanChangeRuleCreate = Type.Object(planChangeRuleFields, {
  additionalProperties: false,
  examples: [
    {
      name: 'Upgrades now, prorated',
      family: 'core',
      direction: 'upgrade',
      changeTiming: 'immediate',
      prorationType: 'prorated',
    },
  ],
});
export const PlanChangeRuleUpdate = Type.Object(
  {
    name: Type.Optional(planChangeRuleFields.name),
    direction: planChangeRuleFields.direction,
    changeTiming: Type.Optional(planChangeRuleFields.changeTiming),
    prorationType: Type.Optional(planChangeRuleFields.prorationType),
  },
  { additionalProperties: false, examples: [{ changeTiming: 'end_of_period' }], minProperties: 1 },
);
