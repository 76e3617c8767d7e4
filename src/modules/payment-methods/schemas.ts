import { Type } from 'typebox';

const Timestamp = Type.String({ format: 'date-time' });

/**
 * An optional integer that may also be null, as `type: [integer, null]` rather than a union, so a
 * bad value gets one error naming the rule (`minimum`, `maximum`) instead of one per branch.
 */
const NullableInteger = (minimum: number, maximum: number, description: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum, maximum, description });

export const PaymentMethodSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Id of the local reference (UUID).' }),
    accountId: Type.String({ description: 'The account the method belongs to, as given on creation.' }),
    type: Type.String({ description: 'Kind of payment method, e.g. `card`.' }),
    cardType: Type.Union([Type.String(), Type.Null()], { description: 'Card brand, e.g. `visa`.' }),
    lastFour: Type.String({ description: 'Last four digits.' }),
    expirationMonth: Type.Union([Type.Integer(), Type.Null()]),
    expirationYear: Type.Union([Type.Integer(), Type.Null()]),
    isDefault: Type.Boolean({
      description: 'Whether this is the default among the account’s local references (exactly one is).',
    }),
    source: Type.Literal('local', { description: 'A reference stored here, not in the billing system.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A local payment-method reference; the card itself lives at the payment provider.' },
);

export const CreatePaymentMethodBody = Type.Object(
  {
    accountId: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[a-zA-Z0-9_-]+$',
      description: 'An account id (UUID) or a billing-system account id.',
    }),
    type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, default: 'card', description: 'Default `card`.' }),
    ),
    lastFour: Type.Optional(
      Type.String({
        pattern: '^[0-9]{4}$',
        default: '0000',
        description: 'Exactly four digits; default `0000`.',
      }),
    ),
    cardType: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        minLength: 1,
        maxLength: 50,
        description: 'Card brand, 1-50 characters, e.g. `visa`.',
      }),
    ),
    expirationMonth: Type.Optional(NullableInteger(1, 12, 'Expiry month, 1-12.')),
    expirationYear: Type.Optional(NullableInteger(2000, 2200, 'Expiry year, four digits (2000-2200).')),
  },
  {
    additionalProperties: false,
    examples: [
      {
        accountId: '0190b000-0000-7000-8000-000000000005',
        type: 'card',
        lastFour: '4242',
        cardType: 'visa',
        expirationMonth: 12,
        expirationYear: 2029,
      },
    ],
  },
);

export const PaymentMethodParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Payment-method reference id.' }),
});
