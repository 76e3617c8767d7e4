import { and, asc, count, desc, eq, gte, inArray, lte, type SQL, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../../db/client.js';
import { jsonParam } from '../../db/sql-params.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { AuditAction } from './actions.js';
import { actionsMatching } from './actions.js';
import { auditLogs } from './tables.js';

export interface AuditInput {
  action: AuditAction;
  resourceType: string;
  resourceId: string;
  details?: Record<string, unknown> | null;
}

export interface AuditActor {
  tenantId: string;
  keyId: string | null;
  requestId: string | null;
}

export interface AuditEntry {
  id: string;
  tenantId: string;
  action: string;
  resourceType: string;
  resourceId: string;
  actor: { keyId: string | null };
  requestId: string | null;
  details: Record<string, unknown> | null;
  createdAt: Date;
}

/** The row of an audit entry (runMutation buffers these and writes them with the change). */
export function auditRow(actor: AuditActor, input: AuditInput, at: Date): typeof auditLogs.$inferInsert {
  return {
    tenantId: actor.tenantId,
    id: uuidv7(),
    action: input.action,
    resourceType: input.resourceType,
    resourceId: input.resourceId,
    actorKeyId: actor.keyId,
    requestId: actor.requestId,
    details: input.details ?? null,
    createdAt: at,
  };
}

type AuditRow = typeof auditLogs.$inferInsert;

/**
 * The INSERT of audit rows, not yet run (to combine with other writes in one statement). Plain
 * SQL with primitive parameters: it is built on every write, and Drizzle's insert builder cost
 * more CPU than the database spent on the statement (bench/RESULTS.md, order-create).
 */
export function auditRowsInsert(rows: readonly AuditRow[]): SQL {
  const values = rows.map(
    (r) =>
      sql`(${r.tenantId}::uuid, ${r.id}::uuid, ${r.action}, ${r.resourceType}, ${r.resourceId}, ${r.actorKeyId ?? null}::uuid, ${r.requestId ?? null}, ${jsonParam(r.details)}::jsonb, ${r.createdAt.toISOString()}::timestamptz)`,
  );
  return sql`insert into audit_logs (tenant_id, id, action, resource_type, resource_id, actor_key_id, request_id, details, created_at) values ${sql.join(values, sql`, `)}`;
}

/** Records an audit entry in the caller's transaction. */
export async function recordAudit(
  tx: Queryable,
  actor: AuditActor,
  input: AuditInput,
  at: Date,
): Promise<void> {
  await tx.execute(auditRowsInsert([auditRow(actor, input, at)]));
}

const isEqual = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** `{ before, after }` holding only the fields whose values differ. */
export function diffChanges<T extends Record<string, unknown>>(
  before: T,
  after: T,
): { before: Partial<T>; after: Partial<T> } {
  const out = { before: {} as Partial<T>, after: {} as Partial<T> };
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)]) as Set<keyof T>) {
    if (isEqual(before[field], after[field])) continue;
    out.before[field] = before[field];
    out.after[field] = after[field];
  }
  return out;
}

export interface AuditQuery {
  action?: string;
  resourceType?: string;
  resourceId?: string;
  since?: Date;
  until?: Date;
  order: 'asc' | 'desc';
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
  if (query.action !== undefined) {
    const actions = actionsMatching(query.action);
    if (actions.length === 0) return { entries: [], total: 0 };
    conditions.push(inArray(auditLogs.action, actions));
  }
  const where = and(tenantWhere(auditLogs, tenantId), ...conditions);
  const direction = query.order === 'asc' ? asc : desc;
  const [rows, totals] = await Promise.all([
    db
      .select()
      .from(auditLogs)
      .where(where)
      .orderBy(direction(auditLogs.createdAt), direction(auditLogs.id))
      .limit(query.limit)
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
      actor: { keyId: r.actorKeyId },
      requestId: r.requestId,
      details: (r.details as Record<string, unknown> | null) ?? null,
      createdAt: r.createdAt,
    })),
  };
}
