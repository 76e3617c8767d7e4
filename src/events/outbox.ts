import { and, desc, eq } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import type { Queryable } from '../db/client.js';
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
 * An event row. Write it only in the transaction of the change it reports (runMutation does): a
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
 * An INSERT of outbox rows returning `tenant_id, id, type`, not yet run: runMutation makes it the
 * `ev` CTE that webhook fan-out reads, all in one statement.
 */
export const insertEventRows = (tx: Queryable, rows: EventRow[]) =>
  tx.insert(events).values(rows).returning({ tenant_id: events.tenantId, id: events.id, type: events.type });

/** Events of a tenant, newest first (tests and, later, webhook replay read these). */
export async function listEvents(db: Queryable, tenantId: string, type?: EventType): Promise<EventRecord[]> {
  const rows = await db
    .select()
    .from(events)
    .where(and(tenantWhere(events, tenantId), type ? eq(events.type, type) : undefined))
    .orderBy(desc(events.occurredAt), desc(events.id));
  return rows.map((r) => ({ ...r, type: r.type as EventType }));
}
