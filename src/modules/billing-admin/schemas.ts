import { Type } from 'typebox';
import { MAX_AMOUNT_CENTS } from '../../core/money.js';
import { StringEnum } from '../../core/schema.js';

const Timestamp = Type.String({ format: 'date-time' });

export const IntegrationSchema = Type.Object({
  adapter: Type.Union([Type.String(), Type.Null()], {
    description: 'Active adapter; null when none is configured.',
  }),
  config: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  createdAt: Type.Union([Timestamp, Type.Null()]),
  updatedAt: Type.Union([Timestamp, Type.Null()]),
  availableAdapters: Type.Array(
    Type.Object({
      name: Type.String(),
      description: Type.String(),
      configSchema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of `config`.' }),
    }),
  ),
});

/** The body of PUT /admin/billing-integration: `adapter` is one of the adapters this deployment has. */
export const putIntegrationBody = (adapters: readonly string[]) =>
  Type.Object(
    {
      adapter: StringEnum(adapters, { description: 'One of `availableAdapters[].name`.' }),
      config: Type.Optional(
        Type.Object(
          {},
          { additionalProperties: true, description: 'Validated against the adapter’s configSchema.' },
        ),
      ),
    },
    { additionalProperties: false, examples: [{ adapter: 'builtin' }] },
  );

const Contact = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()])),
    email: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 255 }), Type.Null()])),
    phone: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 50 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const CreateBillingAccountBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255, description: 'The customer’s name.' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code its invoices are in.' }),
    contacts: Type.Optional(
      Type.Array(Contact, { maxItems: 20, description: 'Billing contacts (up to 20).' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Initech',
        currency: 'USD',
        contacts: [{ name: 'Bill Lumbergh', email: 'ap@initech.example', phone: null }],
      },
    ],
  },
);

export const IssueInvoiceBody = Type.Object(
  {
    lines: Type.Array(
      Type.Object(
        {
          description: Type.String({ minLength: 1, maxLength: 500 }),
          quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
          unitAmountCents: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT_CENTS }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100, description: 'What the invoice charges: 1-100 lines.' },
    ),
    dueDate: Type.Optional(
      Type.String({ format: 'date', description: 'Default: invoice date + payment terms.' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        lines: [{ description: 'Onboarding workshop', quantity: 2, unitAmountCents: 2500 }],
        dueDate: '2026-03-31',
      },
    ],
  },
);

export const AddPaymentMethodBody = Type.Object(
  {
    type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, default: 'card', description: 'Default `card`.' }),
    ),
    cardType: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 50 }), Type.Null()], {
        description: 'Card brand, e.g. `visa`.',
      }),
    ),
    lastFour: Type.Optional(
      Type.String({ pattern: '^[0-9]{4}$', default: '0000', description: 'Last four digits of the card.' }),
    ),
    expirationMonth: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 12 }), Type.Null()], {
        description: 'Expiry month, 1-12.',
      }),
    ),
    expirationYear: Type.Optional(
      Type.Union([Type.Integer({ minimum: 2000, maximum: 2200 }), Type.Null()], {
        description: 'Expiry year.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { type: 'card', cardType: 'visa', lastFour: '4242', expirationMonth: 12, expirationYear: 2029 },
    ],
  },
);

export const AccountIdParams = Type.Object({
  accountId: Type.String({ minLength: 1, maxLength: 64, description: 'The billing-system account id.' }),
});
export const InvoiceIdParams = Type.Object({
  invoiceId: Type.String({ minLength: 1, maxLength: 255, description: 'The billing-system invoice id.' }),
});
