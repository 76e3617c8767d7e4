import type { DeclaredRoute } from '../../../http/declared-route.js';
import { listAuditLogsRoute } from './list-audit-logs.js';

export const auditRoutes: DeclaredRoute[] = [listAuditLogsRoute];
