import { Type } from 'typebox';
import { PAYING_ACCOUNTS } from '../../core/agent-guide.js';
import { MAX_AMOUNT_CENTS } from '../../core/money.js';
import { PageQueryFields } from '../../core/paging.js';
import { StringEnum } from '../../core/schema.js';
import { TagQueryFields, TagsSchema } from '../../core/tags.js';
import { PAYMENT_STATUSES } from './tables.js';

const sessionFields = {
  accountId: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[a-zA-Z0-9_-]+$',
    description: PAYING_ACCOUNTS.text,
  }),
  amountCents: Type.Integer({
    minimum: 1,
    maximum: MAX_AMOUNT_CENTS,
    description: 'Minor units. With an invoice: at most its balance (else 400); less pays in part.',
  }),
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.' }),
  paymentPageSlug: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Payment page the session is tied to.' }),
  ),
};

export const CreatePaymentBody = Type.Object(
  {
    ...sessionFields,
    invoiceId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Invoice to pay: open, in the same currency.',
      }),
    ),
    orderId: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'Order to pay: its `paymentStatus` follows; an invoiced one through its invoice. At most what is ' +
          'left (400); paid already: 409 `order_already_paid`, nothing created.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        accountId: '0190b000-0000-7000-8000-000000000005',
        amountCents: 5000,
        currency: 'USD',
        invoiceId: 'in_3h5j7l9n1q3s5u7w9y1a',
      },
    ],
  },
);

export const PayInvoiceBody = Type.Object(sessionFields, {
  additionalProperties: false,
  examples: [{ accountId: '0190b000-0000-7000-8000-000000000005', amountCents: 5000, currency: 'USD' }],
});

export const PaymentSessionSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  tenantId: Type.String({ format: 'uuid' }),
  accountId: Type.String(),
  amountCents: Type.Integer(),
  currency: Type.String(),
  status: StringEnum(PAYMENT_STATUSES, {
    description:
      '`pending` -> (`processing`) -> `success` | `failed` | `cancelled`; the last three are terminal.',
  }),
  invoiceId: Type.Union([Type.String(), Type.Null()]),
  orderId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'The order the session pays, if any.',
  }),
  paymentPageSlug: Type.Union([Type.String(), Type.Null()]),
  refundedCents: Type.Integer({
    minimum: 0,
    description: 'Given back so far by refunds that are pending or succeeded; at most `amountCents`.',
  }),
  reversal: Type.Union(
    [
      Type.Object({
        reason: Type.String({ description: "The provider's failure reason." }),
        createdAt: Type.String({ format: 'date-time' }),
        providerReference: Type.String({ description: '`provider:<event id>`.' }),
      }),
      Type.Null(),
    ],
    {
      description:
        'A provider failure reported after `success`: the status stays `success` (terminal) and the payment ' +
        'is taken back like a dispute (its invoice open again, its order no longer paid by it).',
    },
  ),
  tags: TagsSchema,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const PaymentListQuery = Type.Object(
  {
    accountId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only sessions of this paying account.' }),
    ),
    status: Type.Optional(StringEnum(PAYMENT_STATUSES, { description: 'Only sessions in this status.' })),
    ...TagQueryFields,
    ...PageQueryFields,
  },
  { additionalProperties: false },
);

export const CompleteSessionBody = Type.Object(
  {
    proof: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'Your reference to the proof (a bank transfer reference, a receipt URL); kept in audit ' +
          '`payment.complete`.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ proof: 'bank transfer ref 2026-11-25-0042' }] },
);

export const SessionParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Payment session id.' }),
});
export const InvoiceParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Billing-system invoice id, e.g. `in_...`.',
  }),
});
