import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import type { Static } from 'typebox';
import { iso, isoOrNull } from '../../../core/format.js';
import type { SortKey } from '../../../core/paging.js';
import { type Queryable, rowsOf, type Tx } from '../../../db/client.js';
import { rowsAfter } from '../../../db/keyset.js';
import { tenantWhere } from '../../../db/tenant-scope.js';
import { eventRow, eventRowsInsert } from '../../../events/outbox.js';
import { events } from '../../../events/tables.js';
import type { DeliveryDetailSchema, DeliverySchema } from '../schemas.js';
import { type DeliveryStatus, webhookAttempts, webhookDeliveries } from '../tables.js';

export type DeliveryApi = Static<typeof DeliverySchema>;
export type DeliveryDetailApi = Static<typeof DeliveryDetailSchema>;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;

const d = webhookDeliveries;

/** The delivery's subscription is one the webhook API shows (not a `ucp` platform target). */
// Qualified by hand: Drizzle writes a column of a one-table statement without its table, which
// inside this subquery would name the subscription's own column.
const ofListedSubscription = sql`exists (select 1 from webhook_subscriptions s
  where s.tenant_id = "webhook_deliveries"."tenant_id" and s.id = "webhook_deliveries"."subscription_id"
    and s.format <> 'ucp')`;

/** A delivery is named by its event: one delivery per event per subscription. */
function present(row: DeliveryRow): DeliveryApi {
  return {
    id: row.eventId,
    subscriptionId: row.subscriptionId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attemptCount: row.attemptCount,
    nextAttemptAt:
      row.status === 'succeeded' || row.status === 'dead_letter' ? null : isoOrNull(row.nextAttemptAt),
    lastAttemptAt: isoOrNull(row.lastAttemptAt),
    lastResponseStatus: row.lastResponseStatus,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/**
 * Deliveries of one subscription, newest first, optionally of one status, after a cursor's key;
 * `limit + 1` rows (the extra one says a next page exists), with the total matching.
 */
export async function listDeliveries(
  db: Queryable,
  tenantId: string,
  subscriptionId: string,
  filter: { status?: DeliveryStatus | undefined; limit: number; offset: number; after?: SortKey | undefined },
): Promise<{ items: DeliveryApi[]; total: number }> {
  const where = tenantWhere(
    d,
    tenantId,
    eq(d.subscriptionId, subscriptionId),
    filter.status === undefined ? undefined : eq(d.status, filter.status),
  );
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(d)
      .where(and(where, filter.after && rowsAfter([d.createdAt, d.eventId], filter.after, true)))
      .orderBy(desc(d.createdAt), desc(d.eventId))
      .limit(filter.limit + 1)
      .offset(filter.offset),
    db.select({ total: count() }).from(d).where(where),
  ]);
  return { items: rows.map(present), total: totals?.total ?? 0 };
}

/** One delivery with its event as delivered and every attempt; undefined when not this tenant's. */
export async function getDelivery(
  db: Queryable,
  tenantId: string,
  subscriptionId: string,
  deliveryId: string,
): Promise<DeliveryDetailApi | undefined> {
  const [found] = await db
    .select({ delivery: d, event: events })
    .from(d)
    .innerJoin(events, and(eq(events.tenantId, d.tenantId), eq(events.id, d.eventId)))
    .where(
      tenantWhere(
        d,
        tenantId,
        eq(d.subscriptionId, subscriptionId),
        eq(d.eventId, deliveryId),
        ofListedSubscription,
      ),
    );
  if (!found) return undefined;
  const a = webhookAttempts;
  const attempts = await db
    .select()
    .from(a)
    .where(tenantWhere(a, tenantId, eq(a.subscriptionId, subscriptionId), eq(a.eventId, deliveryId)))
    .orderBy(asc(a.attempt));
  const { event } = found;
  return {
    ...present(found.delivery),
    event: {
      id: event.id,
      event: event.type,
      timestamp: iso(event.occurredAt),
      tenantId: event.tenantId,
      data: event.payload,
    },
    attempts: attempts.map((row) => ({
      attempt: row.attempt,
      attemptedAt: iso(row.attemptedAt),
      responseStatus: row.responseStatus,
      durationMs: row.durationMs,
      responseBody: row.responseBody,
      error: row.error,
    })),
  };
}

/**
 * Re-enqueues a delivery, whatever its status, for a fresh cycle of 5 attempts due now. A worker
 * sending it at this moment loses its claim: its result is ignored, and the new cycle sends again.
 */
export async function replayDelivery(
  tx: Tx,
  tenantId: string,
  subscriptionId: string,
  deliveryId: string,
  now: Date,
): Promise<DeliveryApi | undefined> {
  const [row] = await tx
    .update(d)
    .set({ status: 'pending', cycleAttempts: 0, nextAttemptAt: now, leaseToken: null, updatedAt: now })
    .where(
      tenantWhere(
        d,
        tenantId,
        eq(d.subscriptionId, subscriptionId),
        eq(d.eventId, deliveryId),
        ofListedSubscription,
      ),
    )
    .returning();
  return row ? present(row) : undefined;
}

/**
 * A `webhook.test` event and its one delivery, to the given subscription only (fan-out skips
 * this type). Written in the caller's transaction.
 */
export async function enqueueTestDelivery(
  tx: Tx,
  tenantId: string,
  subscriptionId: string,
  now: Date,
  requestId: string | null,
): Promise<DeliveryApi> {
  const data = {
    resourceType: 'webhook',
    resourceId: subscriptionId,
    message: 'Test event sent on request (POST /webhooks/{id}/test).',
  };
  const [event] = rowsOf<{ id: string }>(
    await tx.execute(eventRowsInsert([eventRow(tenantId, 'webhook.test', data, now, requestId)])),
  );
  if (!event) throw new Error('webhook.test event was not written');
  const [row] = await tx
    .insert(d)
    .values({
      tenantId,
      subscriptionId,
      eventId: event.id,
      eventType: 'webhook.test',
      status: 'pending',
      attemptCount: 0,
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error('webhook.test delivery was not written');
  return present(row);
}
