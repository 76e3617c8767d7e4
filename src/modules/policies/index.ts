export { policyCrud } from './crud.js';
export {
  activePoliciesRead,
  assertAllowed,
  evaluateLoadedPolicies,
  evaluatePolicies,
  type OrderCreatePolicyInput,
  type OrderUpdatePolicyInput,
  type PlanChangePolicyInput,
  type PlanChangeProduct,
  type PolicyEvaluation,
  type PolicyResult,
} from './evaluate.js';
export type { PolicyEffect, PolicyType } from './schemas.js';
