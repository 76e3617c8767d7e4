// Plan changes: the direction of a change within a product family, and the rule that decides its
// timing and proration.

export type PlanDirection = 'upgrade' | 'downgrade' | 'lateral';
export type ChangeTiming = 'immediate' | 'end_of_period';
export type ProrationType = 'prorated' | 'none' | 'full_credit';

export interface PlanSide {
  id: string;
  family: string | null;
  rank: number | null;
}

/** Upgrade or downgrade by rank within one family; equal ranks or different families are lateral. */
export function planDirection(current: PlanSide, target: PlanSide): PlanDirection {
  if (current.family === null || current.family !== target.family) return 'lateral';
  const a = current.rank ?? 0;
  const b = target.rank ?? 0;
  return b > a ? 'upgrade' : b < a ? 'downgrade' : 'lateral';
}

export interface PlanChangeRule {
  id: string;
  name: string;
  family: string | null;
  fromProductId: string | null;
  toProductId: string | null;
  direction: PlanDirection | null;
  changeTiming: ChangeTiming;
  prorationType: ProrationType;
}

export interface SelectedPlanChangeRule {
  ruleId: string;
  ruleName: string;
  direction: PlanDirection;
  changeTiming: ChangeTiming;
  prorationType: ProrationType;
}

const DEFAULT_RULES: Record<PlanDirection, Omit<SelectedPlanChangeRule, 'direction'>> = {
  upgrade: {
    ruleId: 'default-upgrade',
    ruleName: 'Default: upgrade now, prorated',
    changeTiming: 'immediate',
    prorationType: 'prorated',
  },
  downgrade: {
    ruleId: 'default-downgrade',
    ruleName: 'Default: downgrade at period end',
    changeTiming: 'end_of_period',
    prorationType: 'none',
  },
  lateral: {
    ruleId: 'default-lateral',
    ruleName: 'Default: lateral change now, prorated',
    changeTiming: 'immediate',
    prorationType: 'prorated',
  },
};

/**
 * The rule for changing `current` to `target`: a rule for exactly that product pair; else a rule
 * for the family and the computed direction; else a family rule with no direction; else the
 * default (upgrade immediate and prorated, downgrade at period end without proration, lateral
 * immediate and prorated).
 */
export function selectPlanChangeRule(
  rules: readonly PlanChangeRule[],
  current: PlanSide,
  target: PlanSide,
): SelectedPlanChangeRule {
  const direction = planDirection(current, target);
  const pair = rules.find((r) => r.fromProductId === current.id && r.toProductId === target.id);
  const family = current.family === target.family ? current.family : null;
  const familyRules =
    family === null
      ? []
      : rules.filter((r) => r.fromProductId === null && r.toProductId === null && r.family === family);
  const rule =
    pair ??
    familyRules.find((r) => r.direction === direction) ??
    familyRules.find((r) => r.direction === null);
  if (!rule) return { ...DEFAULT_RULES[direction], direction };
  return {
    ruleId: rule.id,
    ruleName: rule.name,
    direction,
    changeTiming: rule.changeTiming,
    prorationType: rule.prorationType,
  };
}
