import { Type } from 'typebox';
import { CANCELLATION_REFUNDS, PREVIEW_IDS } from '../../core/agent-guide.js';
import { PageQueryFields } from '../../core/paging.js';
import { StringEnum } from '../../core/schema.js';
import { TagQueryFields, TagsSchema } from '../../core/tags.js';
import { GIVE_BACK } from './amounts/figures.js';

export const Uuid = Type.String({ format: 'uuid' });
const NullableUuid = Type.Union([Uuid, Type.Null()]);
export const Timestamp = Type.String({ format: 'date-time' });

export const SUBSCRIPTION_STATUSES = [
  'active',
  'pending_change',
  'pending_cancellation',
  'cancelled',
] as const;
const Status = StringEnum(SUBSCRIPTION_STATUSES, {
  description:
    '`pending_change`: a change waits for the period end (`pendingChange`); `pending_cancellation`: ends at ' +
    '`billedThrough`; `cancelled` is final. Accept other values too.',
});
export const Timing = StringEnum(['immediate', 'end_of_period']);
export const Interval = StringEnum(['month', 'year']);

const PREVIEW_ID = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: PREVIEW_IDS.text,
});

export const CustomerContext = Type.Object(
  {
    segment: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    locale: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Null()])),
    partner: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  },
  {
    additionalProperties: false,
    description: 'Who is buying, for price rules and offers; kept for later changes.',
  },
);

const PendingChangeSchema = Type.Object(
  {
    kind: StringEnum(['plan', 'quantity']),
    productId: Uuid,
    productName: Type.String(),
    quantity: Type.Integer(),
    priceCents: Type.Integer(),
    billingInterval: Interval,
    effectiveAt: Timestamp,
  },
  {
    description:
      'The change applied at `effectiveAt`: the period end, or after an early renewal the end of the period it billed.',
  },
);

export const SubscriptionSchema = Type.Object(
  {
    id: Uuid,
    tenantId: Uuid,
    productId: Uuid,
    productName: Type.String(),
    parentSubscriptionId: Type.Union([Uuid, Type.Null()], {
      description: 'Set on an add-on: the subscription it extends.',
    }),
    contactId: NullableUuid,
    organizationId: NullableUuid,
    orderId: NullableUuid,
    billingAccountId: Type.Union([Type.String(), Type.Null()], {
      description: 'The billing-system account invoiced, or null for a subscription kept only here.',
    }),
    billingSubscriptionId: Type.Union([Type.String(), Type.Null()]),
    quantity: Type.Integer({ minimum: 1 }),
    priceCents: Type.Integer({ description: 'Price of one period for the whole quantity, minor units.' }),
    currency: Type.String(),
    billingInterval: Interval,
    status: Status,
    currentPeriodStart: Timestamp,
    currentPeriodEnd: Timestamp,
    billedThrough: Type.String({
      format: 'date-time',
      description:
        'The end of what has been billed and not given back: `currentPeriodEnd`, or later when an early ' +
        'renewal (POST /subscriptions/{id}/renew before the period end) billed the next period; the ' +
        'subscription moves into that period at `currentPeriodEnd` without another invoice. A ' +
        '`pending_cancellation` ends here: cancel `end_of_period` runs the billed period unless `refund` ' +
        'gives it back (then it ends at `currentPeriodEnd`).',
    }),
    pendingChange: Type.Union([PendingChangeSchema, Type.Null()]),
    cancelledAt: Type.Union([Timestamp, Type.Null()]),
    version: Type.Integer({ description: 'Increases with every change (not with a tag change).' }),
    tags: TagsSchema,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Subscription' },
);

export const SubscriptionId = Type.String({ format: 'uuid', description: 'Subscription id.' });

export const SubscriptionParams = Type.Object({ id: SubscriptionId }, { additionalProperties: false });

export const SubscriptionListQuery = Type.Object(
  {
    status: Type.Optional(Status),
    accountId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'An organization id or a billing-system account id.',
      }),
    ),
    orderId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Only subscriptions made from this order.' }),
    ),
    parentSubscriptionId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Only the add-ons of this subscription.' }),
    ),
    ...TagQueryFields,
    ...PageQueryFields,
  },
  { additionalProperties: false },
);

export const CreateSubscriptionBody = Type.Object(
  {
    productId: Type.String({
      format: 'uuid',
      description: 'A `subscription` product, or an `add_on` product with `parentSubscriptionId`.',
    }),
    quantity: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        default: 1,
        description: 'Units, e.g. seats (default 1).',
      }),
    ),
    contactId: Type.Optional(Type.String({ format: 'uuid', description: 'Individual owner.' })),
    organizationId: Type.Optional(
      Type.String({ format: 'uuid', description: 'B2B owner: one of this tenant’s accounts.' }),
    ),
    accountId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[a-zA-Z0-9_-]+$',
        description:
          'Billing account to provision and invoice in (default: the organization’s `externalId`); without ' +
          'one, it is kept here only, uninvoiced.',
      }),
    ),
    orderId: Type.Optional(Type.String({ format: 'uuid', description: 'The order it came from.' })),
    parentSubscriptionId: Type.Optional(
      Type.String({ format: 'uuid', description: 'Buy an add-on for this subscription.' }),
    ),
    customerContext: Type.Optional(CustomerContext),
    previewId: Type.Optional(PREVIEW_ID),
  },
  {
    additionalProperties: false,
    examples: [
      {
        productId: '01900000-0000-7000-8000-000000000001',
        quantity: 5,
        organizationId: '01900000-0000-7000-8000-0000000000a1',
        customerContext: { segment: 'enterprise' },
      },
      {
        productId: '01900000-0000-7000-8000-000000000009',
        parentSubscriptionId: '01900000-0000-7000-8000-0000000000b1',
        previewId: 'pv1.eyJrIjoiYWRkX29uIiwicyI6IjAxOTAwMDAwLTAwMDAtNzAwMC04MDAwLTAwMDAwMDAwMDBiMSJ9',
      },
    ],
  },
);

export const ChangePlanBody = Type.Object(
  {
    targetProductId: Type.String({ format: 'uuid', description: 'The plan to move to.' }),
    timing: Type.Optional({
      ...Timing,
      description: 'Overrides the plan-change rule’s timing.',
    }),
    previewId: Type.Optional(PREVIEW_ID),
  },
  {
    additionalProperties: false,
    examples: [
      { targetProductId: '01900000-0000-7000-8000-000000000002' },
      { targetProductId: '01900000-0000-7000-8000-000000000002', timing: 'end_of_period' },
    ],
  },
);

export const ChangeQuantityBody = Type.Object(
  {
    quantity: Type.Integer({ minimum: 1, maximum: 100_000, description: 'The new number of units.' }),
    timing: Type.Optional({ ...Timing, description: 'Overrides the plan-change rule’s timing.' }),
  },
  { additionalProperties: false, examples: [{ quantity: 12 }] },
);

export const GiveBackField = StringEnum(GIVE_BACK, { description: CANCELLATION_REFUNDS.text });

export const CancelBody = Type.Object(
  {
    timing: Type.Optional({
      ...Timing,
      description:
        'Default `end_of_period`: at `billedThrough` (what was billed, entitlements until then), or at ' +
        '`currentPeriodEnd` when `refund` gives a period billed early back.',
    }),
    refund: Type.Optional(GiveBackField),
    previewId: Type.Optional(PREVIEW_ID),
  },
  {
    additionalProperties: false,
    examples: [
      { timing: 'end_of_period' },
      { timing: 'immediate', refund: 'credit' },
      { timing: 'end_of_period', refund: 'refund' },
    ],
  },
);

/** The answer of POST /subscriptions/{id}/renew: the subscription, and what the renewal billed. */
export const RenewalSchema = Type.Object({
  ...SubscriptionSchema.properties,
  renewal: StringEnum(['due', 'early', 'prebilled'], {
    description:
      '`due`: the period had ended, the next one started and was invoiced; `early`: the next period was ' +
      'invoiced now, the current one runs on and the subscription moves into it at `currentPeriodEnd` without ' +
      'a second invoice; `prebilled`: the period had ended and the next one, billed early, started.',
  }),
  renewedPeriod: Type.Object(
    { start: Timestamp, end: Timestamp },
    { description: 'The period this renewal covers.' },
  ),
  invoiceId: Type.Union([Type.String(), Type.Null()], {
    description: 'The invoice for `renewedPeriod`, when one was issued now.',
  }),
  paymentSessionId: Type.Union([Uuid, Type.Null()], {
    description: 'The payment session opened for it (GET /payments/{id}), when there is something to pay.',
  }),
});

// ---- previews ------------------------------------------------------------------------------
