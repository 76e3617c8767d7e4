import { Type } from 'typebox';
import { MAX_AMOUNT_CENTS } from '../../core/money.js';
import { Fields, Int4, StringEnum, When } from '../../core/schema.js';

// Schema parts every catalog resource shares.

export const Timestamp = Type.String({ format: 'date-time' });
export const Uuid = Type.String({ format: 'uuid' });
export const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. `USD`.' });
export const Cents = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_AMOUNT_CENTS, description });
/** Optional client-chosen id on create (for seed files and retries); 409 when taken. */
export const ClientId = Type.Optional(
  Type.String({
    format: 'uuid',
    description: 'Optional id to create the resource under; 409 if it is taken.',
  }),
);

export const OptionalText = (max: number, description?: string) =>
  Type.Optional(
    Type.Union(
      [Type.String({ minLength: 1, maxLength: max }), Type.Null()],
      description ? { description } : {},
    ),
  );

export const CHARGE_MODELS = ['flat_fee', 'per_unit', 'tiered', 'volume'] as const;

export const ChargeModelSchema = StringEnum(CHARGE_MODELS, {
  description:
    '`flat_fee`: one price whatever the quantity; `per_unit`: quantity x unit price (+ flat); `tiered`: graduated, ' +
    'each tier prices the units inside it; `volume`: every unit at the price of the tier the quantity falls in.',
});

export const TierSchema = Type.Object(
  {
    upTo: Type.Union([Int4({ minimum: 1 }), Type.Null()], {
      description: 'Inclusive upper bound in units; null for the last, unbounded tier.',
    }),
    unitPriceCents: Cents('Price per unit in this tier, minor units.'),
    flatPriceCents: Type.Optional(Cents('Fixed amount added once when the tier is used (default 0).')),
  },
  { additionalProperties: false },
);

export const TiersSchema = Type.Array(TierSchema, {
  minItems: 1,
  maxItems: 20,
  description:
    'Tiers in order of `upTo`, strictly increasing; the last tier has `upTo: null`. `flat_fee` and `per_unit` take exactly one tier.',
});

/** `flat_fee` and `per_unit` price with exactly one (unbounded) tier. */
export const ONE_TIER_MODELS = When(
  'chargeModel',
  ['flat_fee', 'per_unit'],
  Fields({ tiers: { maxItems: 1 } }),
);

export const TierOut = Type.Object({
  upTo: Type.Union([Type.Integer(), Type.Null()]),
  unitPriceCents: Type.Integer(),
  flatPriceCents: Type.Integer(),
});
