import { Type } from 'typebox';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { PageMeta } from '../../../http/paging.js';
import { AuditEntrySchema, AuditQuerySchema, PaginationSchema } from '../schemas.js';
import { listAuditLogs } from '../service.js';
import { auditQuery, presentAuditPage } from './shared.js';

export const listAuditLogsRoute = defineRoute({
  method: 'GET',
  path: '/audit-logs',
  operationId: 'listAuditLogs',
  summary: 'List audit log entries',
  description:
    'Every recorded write of this tenant (who, what, which resource, and for updates a before/after diff of ' +
    'the changed fields). Filter by `action` (case-insensitive substring), `resourceType`, `resourceId`, ' +
    '`since`/`until` (ISO 8601); sort with `sort=createdAt` or `-createdAt` (default); page with `limit` ' +
    '(default 50, max 200) and `cursor` (`meta.nextCursor`; the `next` action carries it), or `offset`. ' +
    '`pagination.total` counts all matching entries.',
  tags: ['Audit'],
  scope: 'admin',
  query: AuditQuerySchema,
  responses: {
    200: Type.Object(
      {
        data: Type.Array(AuditEntrySchema),
        nextActions: Type.Array(Type.Ref('NextAction')),
        pagination: PaginationSchema,
        meta: PageMeta,
      },
      { description: 'One page of entries, with the count of all matching entries.' },
    ),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const query = auditQuery(ctx.tenantId, deps.keyRing, request.query);
    const { entries, total } = await listAuditLogs(deps.db, ctx.tenantId, query);
    return presentAuditPage(ctx, deps.keyRing, request.query, query, entries, total);
  },
});
