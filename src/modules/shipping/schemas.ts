import { Type } from 'typebox';
import { MAX_AMOUNT_CENTS } from '../../core/money.js';
import { PageQueryFields } from '../../core/paging.js';

const MAX_DAYS = 365;

const Timestamp = Type.String({ format: 'date-time' });
const Days = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_DAYS, description });

export const ShippingOptionSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String({ description: 'Shown to the buyer, e.g. `Standard` or `Express`.' }),
  amountCents: Type.Integer({ description: 'Shipping price in minor units of `currency`.' }),
  currency: Type.String({ description: 'ISO 4217 code, e.g. `USD`.' }),
  countries: Type.Array(Type.String(), {
    description: 'ISO 3166-1 alpha-2 codes the option ships to; empty means every country.',
  }),
  minDays: Type.Integer({ description: 'Fewest days to delivery.' }),
  maxDays: Type.Integer({ description: 'Most days to delivery (>= minDays).' }),
  active: Type.Boolean({ description: 'Inactive options are not offered to buyers.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const fields = {
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Shown to the buyer, e.g. `Standard`.' }),
  amountCents: Type.Integer({
    minimum: 0,
    maximum: MAX_AMOUNT_CENTS,
    description: 'Price in minor units of `currency` (0 = free shipping).',
  }),
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, upper case, e.g. `USD`.' }),
  countries: (options: { default?: string[] } = {}) =>
    Type.Array(Type.String({ pattern: '^[A-Z]{2}$' }), {
      uniqueItems: true,
      maxItems: 250,
      description:
        'ISO 3166-1 alpha-2 codes, upper case and without repeats, e.g. `["US", "CA"]`; empty means every country.',
      ...options,
    }),
  minDays: Days('Fewest days to delivery, 0-365.'),
  maxDays: Days('Most days to delivery, 0-365; must not be less than minDays.'),
  active: (options: { default?: boolean } = {}) =>
    Type.Boolean({ description: 'Inactive options are hidden from buyers.', ...options }),
};

export const ShippingOptionCreate = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'Choose the id yourself (e.g. to mirror another system); 409 if it is taken.',
      }),
    ),
    name: fields.name,
    amountCents: fields.amountCents,
    currency: fields.currency,
    countries: Type.Optional(fields.countries({ default: [] })),
    minDays: fields.minDays,
    maxDays: fields.maxDays,
    active: Type.Optional(fields.active({ default: true })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Standard',
        amountCents: 900,
        currency: 'USD',
        countries: ['US', 'CA'],
        minDays: 3,
        maxDays: 5,
      },
    ],
  },
);

export const ShippingOptionUpdate = Type.Object(
  {
    name: Type.Optional(fields.name),
    amountCents: Type.Optional(fields.amountCents),
    currency: Type.Optional(fields.currency),
    countries: Type.Optional(fields.countries()),
    minDays: Type.Optional(fields.minDays),
    maxDays: Type.Optional(fields.maxDays),
    active: Type.Optional(fields.active()),
  },
  { additionalProperties: false, examples: [{ amountCents: 1200 }], minProperties: 1 },
);

export const ShippingOptionQuery = Type.Object(
  {
    country: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2}$',
        description:
          'Destination, ISO 3166-1 alpha-2, any case (e.g. `us`): keeps options shipping there or everywhere.',
      }),
    ),
    currency: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{3}$',
        description: 'ISO 4217; keeps options priced in it (your cart’s currency).',
      }),
    ),
    ...PageQueryFields,
  },
  { additionalProperties: false },
);
