export { AUDIT_ACTIONS, type AuditAction } from './actions.js';
export { registerAuditRoutes } from './routes.js';
export { type AuditInput, auditRow, diffChanges, insertAuditRows, recordAudit } from './service.js';
