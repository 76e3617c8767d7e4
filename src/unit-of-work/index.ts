export { AUDIT_ACTIONS, type AuditAction, actionsMatching } from './audit-actions.js';
export {
  type AuditActor,
  type AuditInput,
  auditRow,
  auditRowsInsert,
  diffChanges,
  recordAudit,
} from './audit-log.js';
export { compensate } from './compensation.js';
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
  declareOperation,
  declined,
  local,
  operationRegistry,
  type ResourceClaim,
  type Run,
} from './declared-operation.js';
export type {
  ChangedOrder,
  InvoiceMoneyMoved,
  ModuleLookups,
  OrderChanged,
  OrderMoney,
  OrderPaymentView,
  PayableOrder,
  ServiceDeps,
  UsageMeter,
} from './deps.js';
export {
  effectKey,
  INTENT_LEASE_MS,
  Intent,
  type IntentRow,
  type IntentStep,
  pendingIntentStats,
} from './intents.js';
export { type CommitHooks, derivedKey, mintedKey, type OperationKey } from './operation-key.js';
export type { OperationName } from './operation-names.js';
export { type ReconcileReport, reconcileIntents, startReconciler } from './reconciler.js';
export { auditLogs, type EffectKind, type EffectRecord, type IntentStatus, intents } from './tables.js';
export {
  type EventFanOut,
  GuardRefused,
  runUnitOfWork,
  type UnitDeps,
  type UnitOfWork,
  type WriteSet,
} from './unit-of-work.js';
