import type { Static } from 'typebox';
import { validationFailed } from '../../../core/errors.js';
import { iso } from '../../../core/format.js';
import { type CursorKeys, createdKey, NEWEST_FIRST, pageOfRows, pageRequest } from '../../../core/paging.js';
import type { RequestContext } from '../../../http/context.js';
import { type ActionSpec, action, envelope } from '../../../http/envelope.js';
import type { AuditQuerySchema } from '../schemas.js';
import type { AuditEntry, AuditQuery } from '../service.js';

export const PATH = '/audit-logs';

/** A link to another page of the same query; its arguments keep their types (limit a number). */
export function pageLink(rel: string, query: Record<string, unknown>): ActionSpec {
  const params = new URLSearchParams();
  const args = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
  for (const [k, v] of Object.entries(args)) params.set(k, String(v));
  return action(rel, 'GET', `${PATH}?${params}`, 'admin', args);
}

export type Query = Static<typeof AuditQuerySchema>;

/** The cursor's list: entries in one sort order (a cursor of the other order is refused). */
export const listName = (order: 'asc' | 'desc') => `audit-logs:${order}`;

/** The query as the service takes it: dates parsed, `since` not after `until` (else 400), defaults. */
export function auditQuery(tenantId: string, keys: CursorKeys, q: Query): AuditQuery {
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
export function presentAuditPage(
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
