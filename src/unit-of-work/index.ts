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
export { type ReconcileReport, reconcileIntents, startReconciler } from './reconciler.js';
export { auditLogs, type EffectKind, type EffectRecord, type IntentStatus, intents } from './tables.js';
export {
  type EventFanOut,
  runUnitOfWork,
  type UnitDeps,
  type UnitOfWork,
  type WriteSet,
} from './unit-of-work.js';
