import { Type } from 'typebox';
import { StringEnum } from '../../../core/schema.js';
import { AddressIn, Amount, StringMap, Text } from './schema-parts.js';

// ACP delegate_payment (DelegatePaymentRequest / DelegatePaymentResponse): a card handed over
// once, answered with a token bound to an allowance. The number and CVC are read here and never
// stored, logged or echoed.

const PaymentMethodCard = Type.Object(
  {
    type: StringEnum(['card']),
    card_number_type: StringEnum(['fpan', 'network_token']),
    number: Type.String({
      pattern: '^[0-9]{12,19}$',
      description: 'The card number (FPAN or network token).',
    }),
    exp_month: Type.Optional(Type.String({ pattern: '^(0[1-9]|1[0-2])$', description: '`01`-`12`.' })),
    exp_year: Type.Optional(Type.String({ pattern: '^[0-9]{4}$', description: 'Four digits.' })),
    name: Type.Optional(Text(256, 'Cardholder name.')),
    cvc: Type.Optional(
      Type.String({ pattern: '^[0-9]{3,4}$', description: 'Checked for shape only; never kept.' }),
    ),
    cryptogram: Type.Optional(Text(256, 'Network token cryptogram; not kept.')),
    eci_value: Type.Optional(Type.String({ maxLength: 2 })),
    checks_performed: Type.Optional(
      Type.Array(StringEnum(['avs', 'cvv', 'ani', 'auth0']), { maxItems: 4, uniqueItems: true }),
    ),
    iin: Type.Optional(Type.String({ maxLength: 8 })),
    display_card_funding_type: StringEnum(['credit', 'debit', 'prepaid']),
    display_wallet_type: Type.Optional(Text(64, 'e.g. `apple_pay`.')),
    display_brand: Type.Optional(Text(32, 'e.g. `visa`, `mastercard`, `amex`.')),
    display_last4: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
    metadata: StringMap('The card’s metadata; not kept.'),
    virtual: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Allowance = Type.Object(
  {
    reason: StringEnum(['one_time']),
    max_amount: Amount('The most the token may pay, in minor units of `currency`.'),
    currency: Type.String({ pattern: '^[a-z]{3}$', description: 'ISO 4217, lower case, e.g. `usd`.' }),
    checkout_session_id: Text(255, 'The one session the token may pay.', { minLength: 1 }),
    merchant_id: Text(256, 'The `merchant_id` of the session’s `acp_delegated_card` handler config.', {
      minLength: 1,
    }),
    expires_at: Type.String({
      format: 'date-time',
      description: 'RFC 3339; the token is refused from then on.',
    }),
  },
  { additionalProperties: false },
);

const RiskSignal = Type.Object(
  {
    type: StringEnum(['card_testing']),
    score: Type.Integer({ minimum: 0, maximum: 100_000 }),
    action: StringEnum(['blocked', 'manual_review', 'authorized']),
  },
  { additionalProperties: false },
);

export const DelegatePaymentRequest = Type.Object(
  {
    payment_method: PaymentMethodCard,
    allowance: Allowance,
    billing_address: Type.Optional(AddressIn),
    risk_signals: Type.Array(RiskSignal, { minItems: 1, maxItems: 10 }),
    metadata: StringMap('Correlation data, echoed in the answer.'),
  },
  {
    additionalProperties: false,
    examples: [
      {
        payment_method: {
          type: 'card',
          card_number_type: 'fpan',
          number: '4242424242424242',
          exp_month: '11',
          exp_year: '2030',
          name: 'Jane Doe',
          cvc: '223',
          display_card_funding_type: 'credit',
          display_brand: 'visa',
          display_last4: '4242',
          metadata: {},
        },
        allowance: {
          reason: 'one_time',
          max_amount: 5000,
          currency: 'usd',
          checkout_session_id: '0190b000-0000-7000-8000-00000000c001',
          merchant_id: '0190b000-0000-7000-8000-000000000001',
          expires_at: '2026-03-01T11:00:00Z',
        },
        risk_signals: [{ type: 'card_testing', score: 10, action: 'authorized' }],
        metadata: { campaign: 'q4' },
      },
    ],
  },
);

export const DelegatePaymentResponse = Type.Object(
  {
    id: Type.String({ description: 'The token (`vt_...`): shown here once, never again.' }),
    created: Type.String({ format: 'date-time' }),
    metadata: Type.Record(Type.String(), Type.String()),
  },
  {
    examples: [
      {
        id: 'vt_01J8Z3WXYZ9ABC',
        created: '2026-03-01T10:00:00.000Z',
        metadata: { campaign: 'q4', idempotency_key: 'idem_abc123' },
      },
    ],
  },
);
