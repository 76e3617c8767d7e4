export { AUDIT_ACTIONS, type AuditAction, actionsMatching } from './audit-actions.js';
export {
  type AuditActor,
  type AuditInput,
  auditRow,
  auditRowsInsert,
  diffChanges,
  recordAudit,
} from './audit-log.js';
export { type AnyCrudSpec, type CrudService, type CrudSpec, defineCrud } from './crud.js';
export type { ServiceDeps, UsageMeter } from './deps.js';
export { type CommitHooks, derivedKey, mintedKey, type OperationKey } from './operation-key.js';
export { auditLogs } from './tables.js';
export { runUnitOfWork, type UnitDeps, type UnitOfWork, type WriteSet } from './unit-of-work.js';
