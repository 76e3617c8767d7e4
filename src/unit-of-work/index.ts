export { AUDIT_ACTIONS, type AuditAction, actionsMatching } from './audit-actions.js';
export {
  type AuditActor,
  type AuditInput,
  auditRow,
  auditRowsInsert,
  diffChanges,
  recordAudit,
} from './audit-log.js';
export { abandonIntent, anyCallTookEffect, compensate } from './compensation.js';
export {
  type AnyCrudSpec,
  type CrudService,
  type CrudSpec,
  createResource,
  defineCrud,
  deleteResource,
  resourceName,
  updateResource,
} from './crud.js';
export {
  type ClaimOf,
  type Declared,
  type DeclaredOperation,
  Declined,
  type Definition,
  declareOperation,
  declined,
  Local,
  local,
  type OperationDefinition,
  type OperationShape,
  operationRegistry,
  type Run,
} from './declared-operation.js';
export type {
  IntentHandlers,
  InvoiceMoneyMoved,
  ModuleLookups,
  OrderMoney,
  PayableOrder,
  ResumeIntent,
  ServiceDeps,
  UsageMeter,
} from './deps.js';
export {
  beginIntent,
  effectKey,
  INTENT_LEASE_MS,
  Intent,
  type IntentRow,
  type IntentSpec,
  type IntentStep,
  pendingIntentStats,
  pendingPlanOf,
} from './intents.js';
export { type CommitHooks, derivedKey, mintedKey, type OperationKey } from './operation-key.js';
export { OPERATION_NAMES, type OperationName } from './operation-names.js';
export { type ReconcileReport, reconcileIntents, startReconciler } from './reconciler.js';
export type { ResourceClaim } from './resource-claim.js';
export { auditLogs, type EffectKind, type EffectRecord, type IntentStatus, intents } from './tables.js';
export { runUnitOfWork, type UnitDeps, type UnitOfWork, type WriteSet } from './unit-of-work.js';
