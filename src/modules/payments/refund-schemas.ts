import { Type } from 'typebox';
import { MAX_AMOUNT_CENTS } from '../../core/money.js';
import { PageQueryFields } from '../../core/paging.js';
import { StringEnum } from '../../core/schema.js';
import { REFUND_REASONS, REFUND_STATUSES } from './tables.js';

const REASONS_TEXT =
  '`requested_by_customer`, `duplicate`, `fraudulent`, `service_issue` or `other` (say more in `note`).';

const RestockLineSchema = Type.Object(
  {
    productId: Type.String({ format: 'uuid' }),
    quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  },
  { additionalProperties: false },
);

export const CreateRefundBody = Type.Object(
  {
    amountCents: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_AMOUNT_CENTS,
        description: 'Minor units to give back; default: all that is left to refund on the payment.',
      }),
    ),
    reason: StringEnum(REFUND_REASONS, { description: `Why: ${REASONS_TEXT}` }),
    note: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'Free text kept with the refund.' }),
    ),
    invoiceId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Scope check: the invoice the payment paid; another one is 400.',
      }),
    ),
    restock: Type.Optional(
      Type.Boolean({ description: 'Every unit of the paid order not yet restocked goes back in stock.' }),
    ),
    restockItems: Type.Optional(
      Type.Array(RestockLineSchema, {
        minItems: 1,
        maxItems: 100,
        description:
          'These units of the paid order go back in stock (instead of `restock`): each a stock-tracked line, at most ' +
          'what it sold less what refunds restocked (400/409 naming `restockItems.N`).',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ amountCents: 2000, reason: 'requested_by_customer', note: 'Damaged on arrival' }],
  },
);

export const RefundSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  paymentSessionId: Type.String({ format: 'uuid' }),
  accountId: Type.String({ description: 'The paying account of the session.' }),
  invoiceId: Type.Union([Type.String(), Type.Null()], {
    description: 'The invoice the refund is recorded against in the billing system; null without one.',
  }),
  amountCents: Type.Integer({ minimum: 1 }),
  currency: Type.String(),
  reason: StringEnum(REFUND_REASONS),
  note: Type.Union([Type.String(), Type.Null()]),
  restock: Type.Array(RestockLineSchema, {
    description: 'Units of the order put back in stock (while pending: to be put back).',
  }),
  status: StringEnum(REFUND_STATUSES, {
    description:
      '`succeeded` once the billing system recorded it; `pending` while its outcome is being settled after an ' +
      'outage (a retry or the reconciler finishes it); `failed` when the billing system refused it then.',
  }),
  failureMessage: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const RefundListQuery = Type.Object(
  {
    paymentId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Only refunds of this payment session.' }),
    ),
    accountId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only refunds of this paying account.' }),
    ),
    status: Type.Optional(StringEnum(REFUND_STATUSES, { description: 'Only refunds in this status.' })),
    ...PageQueryFields,
  },
  { additionalProperties: false },
);

export const RefundParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The refund id (UUID).' }),
});

const refundData = {
  id: '0190b000-0000-7000-8000-000000000031',
  paymentSessionId: '0190b000-0000-7000-8000-000000000009',
  accountId: '0190b000-0000-7000-8000-000000000005',
  invoiceId: 'in_3h5j7l9n1q3s5u7w9y1a',
  amountCents: 2000,
  currency: 'USD',
  reason: 'requested_by_customer',
  note: 'Damaged on arrival',
  status: 'succeeded',
  restock: [],
  failureMessage: null,
  createdAt: '2026-03-02T10:00:00.000Z',
  updatedAt: '2026-03-02T10:00:00.000Z',
};

export const refundExample = {
  data: refundData,
  nextActions: [
    {
      rel: 'self',
      method: 'GET',
      href: `/api/v1/refunds/${refundData.id}`,
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'payment',
      method: 'GET',
      href: `/api/v1/payments/${refundData.paymentSessionId}`,
      requiredScope: 'read',
      allowed: true,
    },
  ],
};
