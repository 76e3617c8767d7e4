import { Type } from 'typebox';
import { PageQueryFields } from '../../core/paging.js';
import { StringEnum } from '../../core/schema.js';

export const INTENT_STATUSES = [
  'pending',
  'completed',
  'failed',
  'compensated',
  'abandoned',
  'attention',
] as const;

const Timestamp = Type.String({ format: 'date-time' });
const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const EffectSchema = Type.Object({
  step: Type.String({ description: 'The call within the operation, e.g. `provision`, `invoice`, `settle`.' }),
  kind: Type.String({ description: 'What the call does, e.g. `provision_subscription`, `settle_invoice`.' }),
  idempotencyKey: Type.String({
    description: 'The key the billing system received: the same operation, the same key.',
  }),
  outcome: StringEnum(['pending', 'applied', 'refused', 'unknown', 'undone', 'not_applied'], {
    description:
      '`applied`: the call answered with a result; `refused`: it answered with a failure (nothing happened); ' +
      '`unknown`: it failed without an answer; `undone`: compensated; `not_applied`: never took effect; ' +
      '`pending`: not made (yet).',
  }),
  resources: Type.Optional(
    Type.Object(
      {
        subscriptionId: Type.Optional(Type.String()),
        invoiceId: Type.Optional(Type.String()),
        accountId: Type.Optional(Type.String()),
      },
      { description: 'What the call created or changed in the billing system.' },
    ),
  ),
  error: Type.Optional(Type.String()),
});

export const IntentSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  operation: Type.String({
    description: 'What ran, e.g. `subscriptions.create`, `payments.settle`, `orders.create`.',
  }),
  status: StringEnum(INTENT_STATUSES, {
    description:
      '`pending`: in flight, or left open (a crash, a timeout) and waiting for a retry or the reconciler; ' +
      '`completed`: the billing calls and our record of them agree; `failed`: refused, nothing happened; ' +
      '`compensated`: the calls were undone (nobody was told of them); `abandoned`: nothing had taken effect; ' +
      '`attention`: could not be completed or undone: an operator must look.',
  }),
  recovery: StringEnum(['compensate', 'roll_forward'], {
    description: 'What the reconciler does with it if left pending: undo the calls, or finish the operation.',
  }),
  attempt: Type.Integer({
    description: 'Bumped when a closed, uncompleted operation is sent again (new keys).',
  }),
  runs: Type.Integer({
    description: 'How often it was taken up: the first run, retries, reconciler passes.',
  }),
  subject: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()], {
    description: 'The resource the operation changes (a subscription, a payment session), if any.',
  }),
  effects: Type.Array(EffectSchema),
  actorKeyId: NullableString('The API key that asked for the operation; null for the system.'),
  actorUserId: NullableString('The console user that asked for it; null for a key or the system.'),
  requestId: Type.String(),
  lastError: NullableString('Why it is not completed, when it is not.'),
  resolvedBy: NullableString('`operation`, or `reconciler` when the reconciler closed it.'),
  leaseUntil: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  closedAt: Type.Union([Timestamp, Type.Null()]),
});

export const IntentListQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(INTENT_STATUSES, { description: 'Only intents in this status.' })),
    operation: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Only this operation.' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 200,
        default: 50,
        description: 'At most this many, newest first (default 50).',
      }),
    ),
    cursor: PageQueryFields.cursor,
  },
  { additionalProperties: false },
);

export const IntentParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The intent id, from GET /admin/intents.' }),
});
