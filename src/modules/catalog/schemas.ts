import { Type } from 'typebox';
import { Absent, Required, StringEnum, When } from '../../core/schema.js';

export const PRODUCT_TYPES = ['one_time', 'subscription', 'add_on'] as const;

import {
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

export { CHARGE_MODELS, ChargeModelSchema, TierSchema, TiersSchema } from './schema-parts.js';

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
  {
    additionalProperties: false,
    description:
      'A `modeled` charge (the default) needs `chargeModel` and `tiers`; a `passthrough` charge takes neither.',
    allOf: [
      When('kind', ['passthrough'], Absent('chargeModel', 'tiers'), Required('chargeModel', 'tiers')),
      ONE_TIER_MODELS,
    ],
  },
);

const EntitlementValue = Type.Union([Type.Boolean(), Type.Number(), Type.Null()]);
/** The largest limit a feature may carry (limits of add-ons add up, so far below 2^53). */
export const MAX_ENTITLEMENT_LIMIT = 1_000_000_000;
const EntitlementValueInput = Type.Union([
  Type.Boolean(),
  Type.Number({ minimum: 0, maximum: MAX_ENTITLEMENT_LIMIT }),
  Type.Null(),
]);
export const EntitlementsSchema = Type.Record(Type.String(), EntitlementValueInput, {
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
  requiresShipping: Type.Boolean({
    description:
      'A physical good: a checkout offers shipping options for it (otherwise it is delivered digitally).',
  }),
  entitlements: Type.Record(Type.String(), EntitlementValue),
  charges: Type.Array(ChargeSchema),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const productFields = {
  id: ClientId,
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Product name shown in the catalog.' }),
  description: OptionalText(2000, 'Longer text for the catalog (up to 2000 characters).'),
  type: StringEnum(PRODUCT_TYPES, {
    description: '`subscription` products need a `billingInterval`; `one_time` products must not have one.',
  }),
  family: OptionalText(100, 'Plan family, for plan changes.'),
  rank: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000 }), Type.Null()], {
      description: 'Order within the family: higher is an upgrade, lower a downgrade.',
    }),
  ),
  billingInterval: Type.Optional(
    Type.Union([StringEnum(['month', 'year']), Type.Null()], {
      description: 'Length of one billing period; required for `subscription` and `add_on` products.',
    }),
  ),
  currency: Currency,
  active: Type.Optional(
    Type.Boolean({ description: 'Inactive products are hidden from the catalog (default true).' }),
  ),
  requiresShipping: Type.Optional(
    Type.Boolean({
      description: 'A physical good, shipped to the buyer (default false: delivered digitally).',
    }),
  ),
  entitlements: Type.Optional(EntitlementsSchema),
  charges: Type.Array(ChargeInput, {
    minItems: 1,
    maxItems: 20,
    description: 'How the product is priced: 1-20 charges, each a price model with tiers.',
  }),
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
    requiresShipping: productFields.requiresShipping,
    entitlements: productFields.entitlements,
    charges: Type.Optional(productFields.charges),
  },
  {
    additionalProperties: false,
    examples: [{ description: 'For growing teams', active: true }],
    minProperties: 1,
  },
);

export * from './plan-schemas.js';
export * from './rule-schemas.js';
