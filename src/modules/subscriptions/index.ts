export { resumeCancel } from './cancel.js';
export { resumeChange } from './change.js';
export {
  type CreatedSubscription,
  commitCreate,
  type Provisioned,
  provision,
  provisionSteps,
} from './create.js';
export { type CreateInput, type CreatePlan, planCreate } from './create-plan.js';
export { resumeEnd } from './end.js';
export {
  type AccountEntitlements,
  type EntitlementValue,
  emitProductEntitlementsChanged,
  readAccountEntitlements,
} from './entitlements/grants.js';
export { EntitlementReader } from './entitlements/reader.js';
export { resumeRenewal } from './renew.js';
export { type DueWorkResult, runDueSubscriptionWork, startSubscriptionScheduler } from './scheduler.js';
export { SubscriptionSchema } from './schemas.js';
