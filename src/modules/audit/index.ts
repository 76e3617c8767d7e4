export { AUDIT_ACTIONS, type AuditAction } from './actions.js';
export { registerAuditRoutes } from './routes.js';
export { type AuditInput, auditRow, auditRowsInsert, diffChanges, recordAudit } from './service.js';
