import { Type } from 'typebox';
import { StringEnum } from '../../../core/schema.js';
import { GiveBackField, Interval, SubscriptionId, Timestamp, Timing, Uuid } from '../schemas.js';

// The previews' bodies and answers (POST /preview/plan-change, /add-on, /cancellation).

const PreviewStamp = {
  previewId: Type.String({
    description: 'Pass it to the matching operation to execute exactly these figures (opaque).',
  }),
  expiresAt: Type.String({ format: 'date-time', description: '15 minutes after the preview.' }),
};

const ProductRef = Type.Object({ id: Uuid, name: Type.String(), priceCents: Type.Integer() });

const PolicyEvaluationSchema = Type.Object({
  allowed: Type.Boolean(),
  evaluations: Type.Array(
    Type.Object({
      policyId: Uuid,
      policyName: Type.String(),
      policyType: Type.String(),
      result: Type.String({ description: '`block`, `allow` or `not_applicable`.' }),
    }),
  ),
});

const ProrationSchema = Type.Union(
  [
    Type.Object({
      remainingDays: Type.Integer(),
      totalDays: Type.Integer(),
    }),
    Type.Null(),
  ],
  { description: 'UTC calendar days of the current period left and in total, when prorated now.' },
);

export const PlanChangePreviewBody = Type.Object(
  {
    subscriptionId: SubscriptionId,
    targetProductId: Type.String({ format: 'uuid', description: 'The plan to move to.' }),
    timing: Type.Optional({ ...Timing, description: 'Preview with this timing instead of the rule’s.' }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        subscriptionId: '01900000-0000-7000-8000-0000000000b1',
        targetProductId: '01900000-0000-7000-8000-000000000002',
      },
    ],
  },
);

export const PlanChangePreviewSchema = Type.Object({
  subscriptionId: Uuid,
  currentProduct: ProductRef,
  targetProduct: ProductRef,
  direction: StringEnum(['upgrade', 'downgrade', 'lateral']),
  effectiveDate: Timestamp,
  planDependencyAdjustments: Type.Array(
    Type.Object({
      linkId: Uuid,
      sourceChargeId: Uuid,
      targetChargeId: Uuid,
      targetField: Type.String(),
      explanation: Type.String(),
    }),
  ),
  financialImpact: Type.Object({
    currentPriceCents: Type.Integer(),
    newPriceCents: Type.Integer(),
    creditCents: Type.Integer(),
    chargeCents: Type.Integer(),
    netCents: Type.Integer({
      description: 'chargeCents - creditCents; negative is a credit to the customer.',
    }),
    currency: Type.String(),
  }),
  businessRule: Type.Object({
    ruleId: Type.String(),
    ruleName: Type.String(),
    direction: StringEnum(['upgrade', 'downgrade', 'lateral']),
    changeTiming: Timing,
    prorationType: StringEnum(['prorated', 'none', 'full_credit']),
  }),
  policyEvaluation: PolicyEvaluationSchema,
  resolvedPrice: Type.Object({
    basePriceCents: Type.Integer(),
    pricingTierCount: Type.Integer(),
    tiers: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        price: Type.Union([Type.Number(), Type.Null()]),
        currency: Type.String(),
        chargeModel: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  }),
  quantity: Type.Integer({ description: 'The quantity priced (the subscription’s).' }),
  proration: ProrationSchema,
  ...PreviewStamp,
});

export const AddOnPreviewBody = Type.Object(
  {
    subscriptionId: SubscriptionId,
    addOnProductId: Type.String({ format: 'uuid', description: 'The `add_on` product to buy.' }),
    quantity: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        default: 1,
        description: 'Units of the add-on (default 1).',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        subscriptionId: '01900000-0000-7000-8000-0000000000b1',
        addOnProductId: '01900000-0000-7000-8000-000000000009',
      },
    ],
  },
);

const EntitlementsSchema = Type.Record(
  Type.String(),
  Type.Union([Type.Boolean(), Type.Number(), Type.Null()]),
  {
    description: 'Feature -> true/false, a limit, or null (unlimited).',
  },
);

export const AddOnPreviewSchema = Type.Object({
  subscriptionId: Uuid,
  addOnProduct: ProductRef,
  quantity: Type.Integer(),
  billingInterval: Interval,
  effectiveDate: Timestamp,
  periodEnd: Type.String({
    format: 'date-time',
    description: 'The add-on ends its periods with the parent.',
  }),
  financialImpact: Type.Object({
    priceCents: Type.Integer({ description: 'One full period of the add-on, from the next renewal.' }),
    chargeCents: Type.Integer({ description: 'Charged now: the rest of the parent’s period, prorated.' }),
    creditCents: Type.Integer(),
    netCents: Type.Integer(),
    currency: Type.String(),
  }),
  proration: ProrationSchema,
  entitlements: Type.Object({
    before: EntitlementsSchema,
    after: EntitlementsSchema,
    gained: EntitlementsSchema,
  }),
  ...PreviewStamp,
});

export const CancellationPreviewBody = Type.Object(
  {
    subscriptionId: SubscriptionId,
    timing: Type.Optional({ ...Timing, description: 'Default `end_of_period`.' }),
    refund: Type.Optional(GiveBackField),
  },
  {
    additionalProperties: false,
    examples: [
      { subscriptionId: '01900000-0000-7000-8000-0000000000b1', timing: 'immediate', refund: 'credit' },
    ],
  },
);

export const CancellationPreviewSchema = Type.Object({
  subscriptionId: Uuid,
  timing: Timing,
  effectiveDate: Type.String({
    format: 'date-time',
    description:
      'When it ends: now (`immediate`); for `end_of_period` the subscription’s `billedThrough` (after an early ' +
      'renewal, the end of the period it billed), or `currentPeriodEnd` when `refund` gives that period back.',
  }),
  financialImpact: Type.Object({
    currentPriceCents: Type.Integer(),
    creditCents: Type.Integer({
      description:
        'Unused time given back as account credit (`refund: credit`), to the cent: for `end_of_period`, a next ' +
        'period billed early, whole.',
    }),
    refundCents: Type.Integer({
      description: 'Unused time refunded on the last payments, newest first (`refund: refund`), to the cent.',
    }),
    chargeCents: Type.Integer(),
    netCents: Type.Integer(),
    currency: Type.String(),
  }),
  unusedDays: Type.Integer({
    description:
      'Paid days given up: the rest of the period (`immediate`) and a next period billed early that is not run.',
  }),
  entitlementsLost: EntitlementsSchema,
  addOnsCancelled: Type.Array(Uuid, { description: 'Live add-ons that end with it.' }),
  ...PreviewStamp,
});
