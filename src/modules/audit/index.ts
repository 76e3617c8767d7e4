export { type AuditEntry, type AuditQuery, listAuditLogs } from './service.js';
