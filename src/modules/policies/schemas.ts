import { LogicEngine } from 'json-logic-engine';
import { Type } from 'typebox';
import { StringEnum } from '../../core/schema.js';

export const POLICY_TYPES = ['order_create', 'order_update', 'plan_change'] as const;
export const POLICY_EFFECTS = ['block', 'allow'] as const;

export type PolicyType = (typeof POLICY_TYPES)[number];
export type PolicyEffect = (typeof POLICY_EFFECTS)[number];

const Timestamp = Type.String({ format: 'date-time' });
const Uuid = Type.String({ format: 'uuid' });

/** What a policy of each type sees as JSONLogic data; kept in step with docs/policies.md. */
export const POLICY_INPUTS_DOC =
  'Each type sees its own input: ' +
  '`order_create`: `{ order: { items: [{ productId, quantity, priceCents }], totalCents, currency, contactId, ' +
  'organizationId, journeyId }, customerContext: { segment, locale, partner } }`; ' +
  '`order_update`: `{ order: <the order as it is now>, changes: <the PATCH body> }`; ' +
  '`plan_change`: `{ subscription: { id, productId, quantity, status }, currentProduct: { id, name, family, rank, ' +
  'priceCents }, targetProduct: { id, name, family, rank, priceCents }, direction }` with direction ' +
  '`upgrade` | `downgrade` | `lateral`. ' +
  'Example: `{"and": [{"==": [{"var": "direction"}, "downgrade"]}, {"==": [{"var": "subscription.status"}, "active"]}]}`.';

const PolicyTypeSchema = StringEnum(POLICY_TYPES, {
  description:
    'The operation the policy guards: order creation, order changes, or subscription plan changes.',
});

const PolicyEffectSchema = StringEnum(POLICY_EFFECTS, {
  description:
    '`block` stops the operation when the condition holds; `allow` is an explicit exception: when its ' +
    'condition holds, the operation goes ahead even if `block` policies match.',
});

/** The operators a condition may use: the engine's own set (`evaluate.ts` adds none). */
export const CONDITION_OPERATORS = Object.keys(new LogicEngine().methods).sort();

/**
 * The shape the document can state (an object holding exactly one operator of the engine); the
 * service then builds it (`rule: jsonlogic` for the rest: an unknown operator nested deeper,
 * arguments the engine refuses, nesting beyond 64 levels).
 */
const ConditionSchema = Type.Object(
  {},
  {
    minProperties: 1,
    maxProperties: 1,
    propertyNames: { enum: CONDITION_OPERATORS },
    additionalProperties: true,
    description:
      'A JSONLogic object over the input of the policy type, e.g. `{">": [{"var": "order.totalCents"}, 1000000]}`: ' +
      'exactly one operator, whose arguments are values, `{"var": "path"}` or further operations (combine with ' +
      '`and` / `or`; at most 64 levels of nesting). Operators: ' +
      `${CONDITION_OPERATORS.map((o) => `\`${o}\``).join(', ')}. ` +
      'It holds when its result is truthy (JSONLogic truthiness: `0`, `""`, `[]`, `null`, `false` are false).',
  },
);

export const PolicySchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  type: PolicyTypeSchema,
  condition: Type.Unknown({ description: 'The JSONLogic condition.' }),
  effect: PolicyEffectSchema,
  active: Type.Boolean({ description: 'Inactive policies are not evaluated.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const policyFields = {
  name: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Name of the policy, shown when it blocks.',
  }),
  type: PolicyTypeSchema,
  condition: ConditionSchema,
  effect: PolicyEffectSchema,
  active: Type.Optional(Type.Boolean({ description: 'Default true; inactive policies are not evaluated.' })),
};

export const PolicyCreate = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'Client-chosen id (e.g. to load policies from a file); 409 when the tenant already has it.',
      }),
    ),
    ...policyFields,
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Large orders need review',
        type: 'order_create',
        condition: { '>': [{ var: 'totalCents' }, 1000000] },
        effect: 'block',
      },
    ],
  },
);

export const PolicyUpdate = Type.Object(
  {
    name: Type.Optional(policyFields.name),
    type: Type.Optional(policyFields.type),
    condition: Type.Optional(policyFields.condition),
    effect: Type.Optional(policyFields.effect),
    active: policyFields.active,
  },
  { additionalProperties: false, examples: [{ active: false }], minProperties: 1 },
);
