import { Type } from 'typebox';
import { StringEnum } from '../../core/schema.js';
import { WarningSchema } from '../partners/index.js';

export const ResolveQuery = Type.Object(
  {
    productId: Type.String({ format: 'uuid', description: 'The product to price.' }),
    segment: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Customer segment.' })),
    locale: Type.Optional(
      Type.String({ minLength: 1, maxLength: 20, description: 'Customer locale, e.g. `en-US`.' }),
    ),
    partner: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'Partner the sale goes through.' }),
    ),
    quantity: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        default: 1,
        description: 'Units to price (default 1).',
      }),
    ),
  },
  { additionalProperties: false },
);

const Tier = Type.Object({
  upTo: Type.Union([Type.Integer(), Type.Null()]),
  unitPriceCents: Type.Integer(),
  flatPriceCents: Type.Integer(),
});

export const ResolvedPriceSchema = Type.Object({
  productId: Type.String({ format: 'uuid' }),
  productName: Type.String(),
  currency: Type.String(),
  quantity: Type.Integer(),
  context: Type.Object({
    segment: Type.Union([Type.String(), Type.Null()]),
    locale: Type.Union([Type.String(), Type.Null()]),
    partner: Type.Union([Type.String(), Type.Null()]),
  }),
  warnings: Type.Optional(
    Type.Array(WarningSchema, {
      description:
        'Present when the context is suspect: `unknown_partner` when `partner` is no partner of the tenant.',
    }),
  ),
  basePriceCents: Type.Integer({
    description: 'List price for the quantity, before price rules and offers.',
  }),
  subtotalCents: Type.Integer({ description: 'After price rules, before offers.' }),
  discountCents: Type.Integer({ description: 'Taken off by active offers.' }),
  totalCents: Type.Integer({ description: 'What the quantity costs: authoritative.' }),
  unitPriceCents: Type.Integer({ description: 'totalCents / quantity rounded down (informative).' }),
  pricingTierCount: Type.Integer({ description: 'Number of entries in `tiers`.' }),
  tiers: Type.Array(
    Type.Object({
      id: Type.String({ description: 'Charge id.' }),
      name: Type.String(),
      price: Type.Union([Type.Number(), Type.Null()], {
        description:
          'This charge for the quantity, as a decimal in major units; null for passthrough charges.',
      }),
      priceCents: Type.Union([Type.Integer(), Type.Null()]),
      currency: Type.String(),
      chargeModel: Type.Union([StringEnum(['flat_fee', 'per_unit', 'tiered', 'volume']), Type.Null()]),
    }),
    { description: 'One entry per charge of the product, as priced.' },
  ),
  charges: Type.Array(
    Type.Object({
      chargeId: Type.String(),
      name: Type.String(),
      kind: StringEnum(['modeled', 'passthrough']),
      chargeModel: Type.Union([StringEnum(['flat_fee', 'per_unit', 'tiered', 'volume']), Type.Null()]),
      tiers: Type.Array(Tier),
      listCents: Type.Union([Type.Integer(), Type.Null()]),
      amountCents: Type.Union([Type.Integer(), Type.Null()]),
      priceRuleId: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  appliedPriceRules: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), chargeId: Type.String() }),
  ),
  appliedOffers: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), discountCents: Type.Integer() }),
  ),
  requiresQuote: Type.Boolean({
    description:
      'True when a passthrough charge is priced only by a live quote from the billing system at order time.',
  }),
});
