import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../db/client.js';
import { jsonParam } from '../db/sql-params.js';
import { tenantWhere } from '../db/tenant-scope.js';
import type { EventType } from './event-types.js';
import { events } from './tables.js';

export interface EventRecord {
  id: string;
  tenantId: string;
  type: EventType;
  occurredAt: Date;
  payload: unknown;
}

/**
 * An event row. Write it only in the transaction of the change it reports (a unit of work does): a
 * rolled-back change then leaves no event, and a committed one always has its event.
 */
export type EventRow = typeof events.$inferInsert;

export function eventRow(
  tenantId: string,
  type: EventType,
  payload: unknown,
  occurredAt: Date,
  requestId: string | null,
): EventRow {
  return { tenantId, id: uuidv7(), type, occurredAt, payload, requestId };
}

/**
 * An INSERT of outbox rows returning `tenant_id, id, type, payload`, not yet run: a unit of work
 * makes it the `ev` CTE that webhook fan-out reads, all in one statement (the payload: a
 * subscription may take only events about some resources, e.g. ACP orders). Plain SQL with primitive parameters,
 * as it is built on every write (see `auditRowsInsert`).
 */
export function eventRowsInsert(rows: readonly EventRow[]): SQL {
  const values = rows.map(
    (r) =>
      sql`(${r.tenantId}::uuid, ${r.id}::uuid, ${r.type}, ${r.occurredAt.toISOString()}::timestamptz, ${jsonParam(r.payload)}::jsonb, ${r.requestId ?? null})`,
  );
  return sql`insert into events (tenant_id, id, type, occurred_at, payload, request_id) values ${sql.join(values, sql`, `)} returning tenant_id, id, type, payload`;
}

/** Events of a tenant, newest first (tests and, later, webhook replay read these). */
export async function listEvents(db: Queryable, tenantId: string, type?: EventType): Promise<EventRecord[]> {
  const rows = await db
    .select()
    .from(events)
    .where(and(tenantWhere(events, tenantId), type ? eq(events.type, type) : undefined))
    .orderBy(desc(events.occurredAt), desc(events.id));
  return rows.map((r) => ({ ...r, type: r.type as EventType }));
}
