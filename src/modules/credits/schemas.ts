import { Type } from 'typebox';
import { InvoiceSchema } from '../../billing/index.js';
import { MAX_AMOUNT_CENTS } from '../../core/money.js';
import { PageQueryFields } from '../../core/paging.js';
import { StringEnum } from '../../core/schema.js';
import { CREDIT_ENTRY_KINDS } from './tables.js';

const currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, 3 upper-case letters.' });

export const CreditEntrySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  accountId: Type.String({ format: 'uuid' }),
  currency: Type.String(),
  amountCents: Type.Integer({ description: 'Signed: a grant adds, an application or expiry takes away.' }),
  kind: StringEnum(CREDIT_ENTRY_KINDS),
  status: StringEnum(['pending', 'posted'], {
    description:
      '`pending`: an application whose billing call is in flight (counted in the balance already).',
  }),
  reason: Type.String(),
  invoiceId: Type.Union([Type.String(), Type.Null()], { description: 'The invoice an application paid.' }),
  sourceType: Type.Union([Type.String(), Type.Null()], {
    description:
      '`admin`, `subscription` (a cancellation or downgrade) or `credit_entry` (the grant an expiry ends).',
  }),
  sourceId: Type.Union([Type.String(), Type.Null()]),
  remainingCents: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Grants: what is still unspent.',
  }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

export const CreditLedgerSchema = Type.Object({
  accountId: Type.String({ format: 'uuid' }),
  balances: Type.Array(Type.Object({ currency: Type.String(), balanceCents: Type.Integer() }), {
    description:
      'Per currency, what can be spent now: the sum of the entries, less what remains of grants past their `expiresAt` ' +
      '(an expired grant counts nowhere from `expiresAt` on, even before its `expiry` entry is written).',
  }),
  entries: Type.Array(CreditEntrySchema, { description: 'Newest first; paged with `limit` and `cursor`.' }),
});

export const CreditLedgerQuery = Type.Object({ ...PageQueryFields }, { additionalProperties: false });

export const GrantCreditBody = Type.Object(
  {
    amountCents: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_CENTS, description: 'Minor units to add.' }),
    currency,
    reason: Type.String({ minLength: 1, maxLength: 200, description: 'Why, shown in the ledger.' }),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When what is unspent lapses (`credit.expired`); future.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        amountCents: 2500,
        currency: 'USD',
        reason: 'Goodwill for the outage',
        expiresAt: '2027-01-01T00:00:00Z',
      },
    ],
  },
);

export const ApplyCreditBody = Type.Object(
  {
    amountCents: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_AMOUNT_CENTS,
        description: 'Default: as much as both the credit balance and the invoice balance allow.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ amountCents: 1000 }] },
);

export const CreditApplicationSchema = Type.Object({
  application: CreditEntrySchema,
  invoice: InvoiceSchema,
});

const entry = {
  id: '0190b000-0000-7000-8000-000000000041',
  accountId: '0190b000-0000-7000-8000-000000000005',
  currency: 'USD',
  amountCents: 2500,
  kind: 'grant',
  status: 'posted',
  reason: 'Goodwill for the outage',
  invoiceId: null,
  sourceType: 'admin',
  sourceId: null,
  remainingCents: 1500,
  expiresAt: '2027-01-01T00:00:00.000Z',
  createdAt: '2026-03-01T10:00:00.000Z',
};
const application = {
  ...entry,
  id: '0190b000-0000-7000-8000-000000000042',
  amountCents: -1000,
  kind: 'application',
  reason: 'applied to invoice INV-000007',
  invoiceId: 'in_3h5j7l9n1q3s5u7w9y1a',
  sourceType: null,
  remainingCents: null,
  expiresAt: null,
  createdAt: '2026-03-02T10:00:00.000Z',
};
const accountActions = [
  {
    rel: 'credits',
    method: 'GET',
    href: `/api/v1/accounts/${entry.accountId}/credits`,
    requiredScope: 'read',
    allowed: true,
  },
];

export const creditEntryExample = { data: { ...entry, remainingCents: 2500 }, nextActions: accountActions };
export const creditLedgerExample = {
  data: {
    accountId: entry.accountId,
    balances: [{ currency: 'USD', balanceCents: 1500 }],
    entries: [application, entry],
  },
  nextActions: [],
};
export const creditApplicationExample = {
  data: {
    application,
    invoice: {
      id: 'in_3h5j7l9n1q3s5u7w9y1a',
      accountId: 'ba_0000000000000000000a',
      invoiceNumber: 'INV-000007',
      invoiceDate: '2026-03-02',
      dueDate: '2026-04-01',
      amount: 50,
      balance: 40,
      amountCents: 5000,
      balanceCents: 4000,
      currency: 'USD',
      status: 'open',
      hostedInvoiceUrl: null,
      subscriptionId: null,
      lines: [{ description: 'Pro plan', quantity: 1, unitAmountCents: 5000, amountCents: 5000 }],
    },
  },
  nextActions: accountActions,
};
