import { Type } from 'typebox';
import { IfThen, Present, StringEnum } from '../../core/schema.js';
import { ClientId, OptionalText, Timestamp, Uuid } from './schema-parts.js';

// Plan links and plan-change rules.

export const PlanLinkSchema = Type.Object({
  id: Uuid,
  sourceProductId: Uuid,
  sourceChargeId: Uuid,
  targetProductId: Uuid,
  targetChargeId: Uuid,
  targetField: Type.String(),
  explanation: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const planLinkFields = {
  id: ClientId,
  sourceProductId: Type.String({ format: 'uuid', description: 'The plan a subscription moves from.' }),
  sourceChargeId: Type.String({ format: 'uuid', description: 'A charge of the source product.' }),
  targetProductId: Type.String({ format: 'uuid', description: 'The plan a subscription moves to.' }),
  targetChargeId: Type.String({ format: 'uuid', description: 'A charge of the target product.' }),
  targetField: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'What the link carries over on a plan change, e.g. `quantity` or `unitPriceCents`.',
  }),
  explanation: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'Why the link exists, shown in plan-change previews.',
  }),
};

export const PlanLinkCreate = Type.Object(planLinkFields, {
  additionalProperties: false,
  examples: [
    {
      sourceProductId: '0190b000-0000-7000-8000-000000000003',
      sourceChargeId: '0190b000-0000-7000-8000-000000000004',
      targetProductId: '0190b000-0000-7000-8000-0000000000a2',
      targetChargeId: '0190b000-0000-7000-8000-0000000000a3',
      targetField: 'quantity',
      explanation: 'Seats carry over to the annual plan.',
    },
  ],
});
export const PlanLinkUpdate = Type.Object(
  {
    targetField: Type.Optional(planLinkFields.targetField),
    explanation: Type.Optional(planLinkFields.explanation),
  },
  {
    additionalProperties: false,
    examples: [{ explanation: 'Seats carry over one for one.' }],
    minProperties: 1,
  },
);

const DIRECTIONS = ['upgrade', 'downgrade', 'lateral'] as const;

export const PlanChangeRuleSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  family: Type.Union([Type.String(), Type.Null()]),
  fromProductId: Type.Union([Uuid, Type.Null()]),
  toProductId: Type.Union([Uuid, Type.Null()]),
  direction: Type.Union([StringEnum(DIRECTIONS), Type.Null()]),
  changeTiming: StringEnum(['immediate', 'end_of_period']),
  prorationType: StringEnum(['prorated', 'none', 'full_credit']),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const planChangeRuleFields = {
  id: ClientId,
  name: Type.String({ minLength: 1, maxLength: 255, description: 'Name of the rule.' }),
  family: OptionalText(100, 'Family the rule covers (with an optional direction); or give a product pair.'),
  fromProductId: Type.Optional(
    Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'The plan changed from.' }),
  ),
  toProductId: Type.Optional(
    Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'The plan changed to.' }),
  ),
  direction: Type.Optional(
    Type.Union([StringEnum(DIRECTIONS), Type.Null()], { description: 'The direction the rule covers.' }),
  ),
  changeTiming: StringEnum(['immediate', 'end_of_period'], { description: 'When a change takes effect.' }),
  prorationType: StringEnum(['prorated', 'none', 'full_credit'], {
    description: 'What an immediate change credits and charges for the rest of the period.',
  }),
};

/**
 * The two forms of a rule: a product pair (both `fromProductId` and `toProductId`), or a
 * `family` (with an optional `direction`) when neither id is given.
 */
const RULE_FORMS = IfThen(
  { anyOf: [Present({ fromProductId: 'string' }), Present({ toProductId: 'string' })] },
  Present({ fromProductId: 'string', toProductId: 'string' }),
  Present({ family: 'string' }),
);

export const PlanChangeRuleCreate = Type.Object(planChangeRuleFields, {
  additionalProperties: false,
  description:
    'Either a product pair (`fromProductId` and `toProductId`, different products) or a `family` with an optional `direction`.',
  ...RULE_FORMS,
  examples: [
    {
      name: 'Upgrades now, prorated',
      family: 'core',
      direction: 'upgrade',
      changeTiming: 'immediate',
      prorationType: 'prorated',
    },
  ],
});
export const PlanChangeRuleUpdate = Type.Object(
  {
    name: Type.Optional(planChangeRuleFields.name),
    direction: planChangeRuleFields.direction,
    changeTiming: Type.Optional(planChangeRuleFields.changeTiming),
    prorationType: Type.Optional(planChangeRuleFields.prorationType),
  },
  { additionalProperties: false, examples: [{ changeTiming: 'end_of_period' }], minProperties: 1 },
);
