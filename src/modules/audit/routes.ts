import { type Static, Type } from 'typebox';
import { validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, envelope } from '../../http/envelope.js';
import type { TypedApp } from '../../http/types.js';
import { AuditEntrySchema, AuditQuerySchema, PaginationSchema } from './schemas.js';
import { type AuditEntry, type AuditQuery, listAuditLogs } from './service.js';

const PATH = '/audit-logs';

function pageLink(rel: string, query: Record<string, unknown>, offset: number): ActionSpec {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...query, offset })) if (v !== undefined) params.set(k, String(v));
  return action(rel, 'GET', `${PATH}?${params}`, 'admin');
}

type Query = Static<typeof AuditQuerySchema>;

/** The query as the service takes it: dates parsed, `since` not after `until` (else 400), defaults. */
function auditQuery(q: Query): AuditQuery {
  const since = q.since === undefined ? undefined : new Date(q.since);
  const until = q.until === undefined ? undefined : new Date(q.until);
  if (since && until && since > until)
    throw validationFailed('query.since', 'order', 'query.since must not be after query.until');
  return {
    action: q.action,
    resourceType: q.resourceType,
    resourceId: q.resourceId,
    since,
    until,
    order: q.sort === 'createdAt' ? 'asc' : 'desc',
    limit: q.limit ?? 50,
    offset: q.offset ?? 0,
  };
}

/** One page of entries, with `next`/`previous` links and the pagination totals. */
function presentAuditPage(
  ctx: RequestContext,
  q: Query,
  query: AuditQuery,
  entries: AuditEntry[],
  total: number,
) {
  const { limit, offset } = query;
  const links: ActionSpec[] = [];
  const filters = { ...q, limit, offset: undefined };
  if (offset + entries.length < total) links.push(pageLink('next', filters, offset + limit));
  if (offset > 0) links.push(pageLink('previous', filters, Math.max(0, offset - limit)));
  const page = entries.map((e) => ({ ...e, createdAt: iso(e.createdAt) }));
  return { ...envelope(ctx, page, links), pagination: { total, limit, offset } };
}

export function registerAuditRoutes(app: TypedApp, deps: Deps) {
  app.get(
    `/api/v1${PATH}`,
    {
      config: { public: true, scope: 'admin' },
      schema: {
        operationId: 'listAuditLogs',
        summary: 'List audit log entries',
        description:
          'Every recorded write of this tenant (who, what, which resource, and for updates a before/after diff of ' +
          'the changed fields). Filter by `action` (case-insensitive substring), `resourceType`, `resourceId`, ' +
          '`since`/`until` (ISO 8601); sort with `sort=createdAt` or `-createdAt` (default); page with `limit` ' +
          '(default 50, max 200) and `offset`. `pagination.total` counts all matching entries; follow the `next` action.',
        tags: ['Audit'],
        querystring: AuditQuerySchema,
        response: {
          200: Type.Object(
            {
              data: Type.Array(AuditEntrySchema),
              nextActions: Type.Array(Type.Ref('NextAction')),
              pagination: PaginationSchema,
            },
            { description: 'One page of entries, with the count of all matching entries.' },
          ),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const query = auditQuery(request.query);
      const { entries, total } = await listAuditLogs(deps.db, ctx.tenantId, query);
      return presentAuditPage(ctx, request.query, query, entries, total);
    },
  );
}
