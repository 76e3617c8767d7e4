import { type SQL, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../db/client.js';
import { jsonParam } from '../db/sql-params.js';
import type { AuditAction } from './audit-actions.js';
import type { auditLogs } from './tables.js';

// The write side of the audit log: every unit of work records its entries with its change.

export interface AuditInput {
  action: AuditAction;
  resourceType: string;
  resourceId: string;
  details?: Record<string, unknown> | null;
}

export interface AuditActor {
  tenantId: string;
  keyId: string | null;
  /** The console user acting (a session), else null. */
  userId?: string | null;
  requestId: string | null;
}

/** The row of an audit entry (a unit of work buffers these and writes them with its change). */
export function auditRow(actor: AuditActor, input: AuditInput, at: Date): typeof auditLogs.$inferInsert {
  return {
    tenantId: actor.tenantId,
    id: uuidv7(),
    action: input.action,
    resourceType: input.resourceType,
    resourceId: input.resourceId,
    actorKeyId: actor.keyId,
    actorUserId: actor.userId ?? null,
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
      sql`(${r.tenantId}::uuid, ${r.id}::uuid, ${r.action}, ${r.resourceType}, ${r.resourceId}, ${r.actorKeyId ?? null}::uuid, ${r.actorUserId ?? null}::uuid, ${r.requestId ?? null}, ${jsonParam(r.details)}::jsonb, ${r.createdAt.toISOString()}::timestamptz)`,
  );
  return sql`insert into audit_logs (tenant_id, id, action, resource_type, resource_id, actor_key_id, actor_user_id, request_id, details, created_at) values ${sql.join(values, sql`, `)}`;
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
