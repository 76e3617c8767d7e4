export { type Commit, type CreateInput, type Prepared, prepareCreate } from './operations.js';
export { type DueWorkResult, runDueSubscriptionWork, startSubscriptionScheduler } from './scheduler.js';
export { SubscriptionSchema } from './schemas.js';
