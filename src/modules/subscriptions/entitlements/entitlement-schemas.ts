import { Type } from 'typebox';
import { StringEnum } from '../../../core/schema.js';

const Uuid = Type.String({ format: 'uuid' });

const EntitlementValue = Type.Union([Type.Boolean(), Type.Number(), Type.Null()]);

const EntitlementsSchema = Type.Record(Type.String(), EntitlementValue, {
  description:
    'Feature -> `true`/`false` (a flag), a number (a limit) or `null` (unlimited). `{}` grants nothing.',
});

const FEATURE_PATTERN = '^[a-z][a-z0-9_.-]{0,99}$';

export const AccountEntitlementsParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The account (organization) id.' }),
});

export const EntitlementCheckQuery = Type.Object(
  {
    accountId: Type.String({ format: 'uuid', description: 'The account (organization) id.' }),
    feature: Type.String({
      pattern: FEATURE_PATTERN,
      description: 'The feature key, as products name it (e.g. `seats`, `sso`).',
    }),
  },
  { additionalProperties: false },
);

const ContributionSchema = Type.Object(
  {
    subscriptionId: Uuid,
    parentSubscriptionId: Type.Union([Uuid, Type.Null()], { description: 'Set on an add-on.' }),
    productId: Uuid,
    productName: Type.String(),
    status: StringEnum(['active', 'pending_change', 'pending_cancellation']),
    entitlements: Type.Record(Type.String(), EntitlementValue, {
      description: 'What this subscription’s product grants on its own.',
    }),
  },
  { description: 'A subscription that contributes to the set, with what its product grants.' },
);

export const AccountEntitlementsSchema = Type.Object({
  accountId: Uuid,
  entitlements: EntitlementsSchema,
  resolvedFrom: Type.Array(ContributionSchema, {
    description:
      'Every subscription the set merges, oldest first: a feature is granted by the entries whose `entitlements` name it.',
  }),
});

export const EntitlementCheckSchema = Type.Object({
  accountId: Uuid,
  feature: Type.String(),
  allowed: Type.Boolean({
    description:
      'Granted: `true`, a limit above 0, or unlimited. False when absent, `false` or a limit <= 0.',
  }),
  limit: Type.Union([Type.Number(), Type.Null()], {
    description: 'The merged numeric limit; null when there is none (unlimited, a flag, or not granted).',
  }),
  grantedBy: Type.Array(
    Type.Object({
      subscriptionId: Uuid,
      productId: Uuid,
      productName: Type.String(),
      value: EntitlementValue,
    }),
    { description: 'The subscriptions whose product names the feature, with the value each gives.' },
  ),
});

const ACCOUNT = '0190b000-0000-7000-8000-000000000005';
const PLAN = {
  subscriptionId: '0190b000-0000-7000-8000-0000000000b1',
  parentSubscriptionId: null,
  productId: '0190b000-0000-7000-8000-000000000010',
  productName: 'Team',
  status: 'active',
  entitlements: { seats: 10, sso: true, api_calls: null },
};
const ADD_ON = {
  subscriptionId: '0190b000-0000-7000-8000-0000000000b2',
  parentSubscriptionId: PLAN.subscriptionId,
  productId: '0190b000-0000-7000-8000-000000000011',
  productName: 'Extra seats',
  status: 'active',
  entitlements: { seats: 5 },
};

export const accountEntitlementsExample = {
  data: {
    accountId: ACCOUNT,
    entitlements: { seats: 15, sso: true, api_calls: null },
    resolvedFrom: [PLAN, ADD_ON],
  },
  nextActions: [
    {
      rel: 'self',
      method: 'GET',
      href: `/api/v1/accounts/${ACCOUNT}/entitlements`,
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'account',
      method: 'GET',
      href: `/api/v1/accounts/${ACCOUNT}`,
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'subscriptions',
      method: 'GET',
      href: `/api/v1/subscriptions?accountId=${ACCOUNT}`,
      requiredScope: 'read',
      allowed: true,
    },
  ],
};

export const entitlementCheckExample = {
  data: {
    accountId: ACCOUNT,
    feature: 'seats',
    allowed: true,
    limit: 15,
    grantedBy: [
      { subscriptionId: PLAN.subscriptionId, productId: PLAN.productId, productName: 'Team', value: 10 },
      {
        subscriptionId: ADD_ON.subscriptionId,
        productId: ADD_ON.productId,
        productName: 'Extra seats',
        value: 5,
      },
    ],
  },
  nextActions: [
    {
      rel: 'entitlements',
      method: 'GET',
      href: `/api/v1/accounts/${ACCOUNT}/entitlements`,
      requiredScope: 'read',
      allowed: true,
    },
  ],
};
