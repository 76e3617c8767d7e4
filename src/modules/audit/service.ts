import { and, asc, count, desc, eq, gte, inArray, lte, type SQL } from 'drizzle-orm';
import type { SortKey } from '../../core/paging.js';
import type { Queryable } from '../../db/client.js';
import { rowsAfter } from '../../db/keyset.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { actionsMatching, auditLogs } from '../../unit-of-work/index.js';

export interface AuditEntry {
  id: string;
  tenantId: string;
  action: string;
  resourceType: string;
  resourceId: string;
  actor: { keyId: string | null; userId: string | null };
  requestId: string | null;
  details: Record<string, unknown> | null;
  createdAt: Date;
}

export interface AuditQuery {
  action?: string;
  resourceType?: string;
  resourceId?: string;
  since?: Date;
  until?: Date;
  order: 'asc' | 'desc';
  /** The sort key of the last entry of the previous page (keyset paging); else `offset` counts. */
  after?: SortKey | undefined;
  limit: number;
  offset: number;
}

export async function listAuditLogs(
  db: Queryable,
  tenantId: string,
  query: AuditQuery,
): Promise<{ entries: AuditEntry[]; total: number }> {
  const conditions: (SQL | undefined)[] = [
    query.resourceType === undefined ? undefined : eq(auditLogs.resourceType, query.resourceType),
    query.resourceId === undefined ? undefined : eq(auditLogs.resourceId, query.resourceId),
    query.since && gte(auditLogs.createdAt, query.since),
    query.until && lte(auditLogs.createdAt, query.until),
  ];
  const after =
    query.after && rowsAfter([auditLogs.createdAt, auditLogs.id], query.after, query.order === 'desc');
  if (query.action !== undefined) {
    const actions = actionsMatching(query.action);
    if (actions.length === 0) return { entries: [], total: 0 };
    conditions.push(inArray(auditLogs.action, actions));
  }
  const where = and(tenantWhere(auditLogs, tenantId), ...conditions);
  // One row past the page says whether a next page exists; `total` ignores the cursor.
  const direction = query.order === 'asc' ? asc : desc;
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(auditLogs)
      .where(and(where, after))
      .orderBy(direction(auditLogs.createdAt), direction(auditLogs.id))
      .limit(query.limit + 1)
      .offset(query.offset),
    db.select({ total: count() }).from(auditLogs).where(where),
  ]);
  return {
    total: totals[0]?.total ?? 0,
    entries: rows.map((r) => ({
      id: r.id,
      tenantId: r.tenantId,
      action: r.action,
      resourceType: r.resourceType,
      resourceId: r.resourceId,
      actor: { keyId: r.actorKeyId, userId: r.actorUserId },
      requestId: r.requestId,
      details: (r.details as Record<string, unknown> | null) ?? null,
      createdAt: r.createdAt,
    })),
  };
}
