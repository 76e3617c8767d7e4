import { type Static, Type } from 'typebox';
import { validationFailed } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import { type CursorKeys, createdKey, NEWEST_FIRST, pageOfRows, pageRequest } from '../../core/paging.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, envelope } from '../../http/envelope.js';
import { PageMeta } from '../../http/paging.js';
import type { TypedApp } from '../../http/types.js';
import { AuditEntrySchema, AuditQuerySchema, PaginationSchema } from './schemas.js';
import { type AuditEntry, type AuditQuery, listAuditLogs } from './service.js';

const PATH = '/audit-logs';

/** A link to another page of the same query; its arguments keep their types (limit a number). */
function pageLink(rel: string, query: Record<string, unknown>): ActionSpec {
  const params = new URLSearchParams();
  const args = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
  for (const [k, v] of Object.entries(args)) params.set(k, String(v));
  return action(rel, 'GET', `${PATH}?${params}`, 'admin', args);
}

type Query = Static<typeof AuditQuerySchema>;

/** The cursor's list: entries in one sort order (a cursor of the other order is refused). */
const listName = (order: 'asc' | 'desc') => `audit-logs:${order}`;

/** The query as the service takes it: dates parsed, `since` not after `until` (else 400), defaults. */
function auditQuery(tenantId: string, keys: CursorKeys, q: Query): AuditQuery {
  const since = q.since === undefined ? undefined : new Date(q.since);
  const until = q.until === undefined ? undefined : new Date(q.until);
  if (since && until && since > until)
    throw validationFailed('query.since', 'order', 'query.since must not be after query.until');
  if (q.cursor !== undefined && q.offset)
    throw validationFailed('query.offset', 'cursor', 'query.offset cannot be combined with query.cursor');
  const order = q.sort === 'createdAt' ? 'asc' : 'desc';
  const limit = q.limit ?? 50;
  return {
    after:
      pageRequest({ tenantId, list: listName(order), keys }, { limit, cursor: q.cursor }, NEWEST_FIRST)
        ?.after ?? undefined,
    action: q.action,
    resourceType: q.resourceType,
    resourceId: q.resourceId,
    since,
    until,
    order,
    limit,
    offset: q.offset ?? 0,
  };
}

/**
 * One page of entries (read with one more than the limit), with the pagination totals, `meta`
 * and the links: `next` by cursor (stable while entries are added), `previous` by offset.
 */
function presentAuditPage(
  ctx: RequestContext,
  keys: CursorKeys,
  q: Query,
  query: AuditQuery,
  rows: AuditEntry[],
  total: number,
) {
  const { limit, offset } = query;
  const where = { tenantId: ctx.tenantId, list: listName(query.order), keys };
  const paged = pageOfRows(rows, { limit, after: null }, createdKey, where);
  const links: ActionSpec[] = [];
  const filters = { ...q, limit, offset: undefined, cursor: undefined };
  if (paged.nextCursor !== null) links.push(pageLink('next', { ...filters, cursor: paged.nextCursor }));
  if (offset > 0 && q.cursor === undefined)
    links.push(pageLink('previous', { ...filters, offset: Math.max(0, offset - limit) }));
  const page = paged.items.map((e) => ({ ...e, createdAt: iso(e.createdAt) }));
  return {
    ...envelope(ctx, page, links),
    pagination: { total, limit, offset },
    meta: { limit, nextCursor: paged.nextCursor },
  };
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
          '(default 50, max 200) and `cursor` (`meta.nextCursor`; the `next` action carries it), or `offset`. ' +
          '`pagination.total` counts all matching entries.',
        tags: ['Audit'],
        querystring: AuditQuerySchema,
        response: {
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
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const query = auditQuery(ctx.tenantId, deps.keyRing, request.query);
      const { entries, total } = await listAuditLogs(deps.db, ctx.tenantId, query);
      return presentAuditPage(ctx, deps.keyRing, request.query, query, entries, total);
    },
  );
}
