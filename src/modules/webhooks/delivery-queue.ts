import { sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { type Queryable, rowsOf } from '../../db/client.js';
import type { DeliveryStatus } from './tables.js';

/**
 * The delivery worker's side of webhook_deliveries. The worker serves every tenant, so these are
 * the one place that reads deliveries across tenants; each row carries its tenant, and results
 * are written back by the full key (tenant, subscription, event).
 */

/** A delivery a worker now holds: everything needed to sign and send it. */
export interface ClaimedDelivery {
  tenantId: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  occurredAt: Date;
  payload: unknown;
  url: string;
  /** Attempts already made in this cycle (0 for the first). */
  cycleAttempts: number;
  leaseToken: string;
  /** Physical address of the claimed row version: results find it without an index search. */
  rowRef: string;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
}

interface ClaimRow {
  row_ref: string;
  tenant_id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  occurred_at: Date | string;
  payload: unknown;
  url: string;
  cycle_attempts: number;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | string | null;
}

const asDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

/**
 * Claims up to `limit` due deliveries of active subscriptions, oldest due first, with
 * `FOR UPDATE SKIP LOCKED` so concurrent workers never claim the same row. A claim is a lease:
 * the row's `next_attempt_at` moves to `now + leaseMs` under a fresh token, so a worker that dies
 * before writing the result leaves the delivery due again once the lease ends.
 */
export async function claimDueDeliveries(
  db: Queryable,
  now: Date,
  limit: number,
  leaseMs: number,
  /** Only these tenants' deliveries (a worker pinned to some tenants; tests); all when absent. */
  tenantIds?: readonly string[],
): Promise<ClaimedDelivery[]> {
  const leaseToken = uuidv7();
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const tenantFilter = tenantIds
    ? sql`and d.tenant_id in (${sql.join(
        tenantIds.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`
    : sql``;
  const result = await db.execute(sql`
    with due as (
      select d.ctid
      from webhook_deliveries d
      join webhook_subscriptions s on s.tenant_id = d.tenant_id and s.id = d.subscription_id
      where d.status in ('pending', 'failed') and d.next_attempt_at <= ${now} and s.is_active ${tenantFilter}
      order by d.next_attempt_at
      limit ${limit}
      for update of d skip locked
    )
    update webhook_deliveries d
    set next_attempt_at = ${leaseUntil}, lease_token = ${leaseToken}
    from due, events e, webhook_subscriptions s
    where d.ctid = due.ctid
      and e.tenant_id = d.tenant_id and e.id = d.event_id
      and s.tenant_id = d.tenant_id and s.id = d.subscription_id
    returning d.ctid::text as row_ref, d.tenant_id, d.subscription_id, d.event_id, d.event_type, d.cycle_attempts,
      e.occurred_at, e.payload, s.url, s.secret_ciphertext, s.previous_secret_ciphertext,
      s.previous_secret_expires_at`);
  return rowsOf<ClaimRow>(result).map((r) => ({
    tenantId: r.tenant_id,
    subscriptionId: r.subscription_id,
    eventId: r.event_id,
    eventType: r.event_type,
    occurredAt: asDate(r.occurred_at),
    payload: r.payload,
    url: r.url,
    cycleAttempts: Number(r.cycle_attempts),
    leaseToken,
    rowRef: r.row_ref,
    secretCiphertext: r.secret_ciphertext,
    previousSecretCiphertext: r.previous_secret_ciphertext,
    previousSecretExpiresAt:
      r.previous_secret_expires_at === null ? null : asDate(r.previous_secret_expires_at),
  }));
}

/** The outcome of one attempt and what it makes of the delivery. */
export interface AttemptResult {
  tenantId: string;
  subscriptionId: string;
  eventId: string;
  leaseToken: string;
  /** `ClaimedDelivery.rowRef` of the claim. */
  rowRef: string;
  attemptedAt: Date;
  status: Exclude<DeliveryStatus, 'pending'>;
  /** When to try again (status `failed`); null once succeeded or dead-lettered. */
  nextAttemptAt: Date | null;
  responseStatus: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
}

/**
 * Writes a batch of attempt results in one statement: each delivery's new status and schedule,
 * and its attempt row. Only rows still held under the same lease are written: a delivery that
 * was deleted, or replayed meanwhile, ignores the stale result. Returns how many were written.
 *
 * Claim and result address the row by `ctid` (the queue-table pattern): a lookup by key could be
 * planned on the (tenant, subscription) prefix shared with the listing index, scanning every
 * delivery of a busy subscription per row. A row version's ctid changes when the row changes, so
 * the lease token decides: a replay clears it, and a ctid reused by another row never matches.
 */
export async function recordAttempts(db: Queryable, results: readonly AttemptResult[], now: Date) {
  if (results.length === 0) return 0;
  const json = JSON.stringify(
    results.map((r) => ({
      tenant_id: r.tenantId,
      subscription_id: r.subscriptionId,
      event_id: r.eventId,
      lease_token: r.leaseToken,
      row_ref: r.rowRef,
      attempted_at: r.attemptedAt.toISOString(),
      status: r.status,
      next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
      response_status: r.responseStatus,
      duration_ms: r.durationMs,
      response_body: r.responseBody,
      error: r.error,
    })),
  );
  const result = await db.execute(sql`
    with r as (
      select * from jsonb_to_recordset(${json}::jsonb) as x(
        tenant_id uuid, subscription_id uuid, event_id uuid, lease_token uuid, row_ref tid, attempted_at timestamptz,
        status text, next_attempt_at timestamptz, response_status integer, duration_ms integer,
        response_body text, error text)
    ),
    upd as (
      update webhook_deliveries d
      set status = r.status, next_attempt_at = r.next_attempt_at, lease_token = null,
        attempt_count = d.attempt_count + 1, cycle_attempts = d.cycle_attempts + 1,
        last_attempt_at = r.attempted_at, last_response_status = r.response_status, updated_at = ${now}
      from r
      where d.ctid = r.row_ref and d.lease_token = r.lease_token
      returning d.tenant_id, d.subscription_id, d.event_id, d.attempt_count
    )
    insert into webhook_attempts
      (tenant_id, subscription_id, event_id, attempt, attempted_at, response_status, duration_ms,
       response_body, error)
    select upd.tenant_id, upd.subscription_id, upd.event_id, upd.attempt_count, r.attempted_at,
      r.response_status, r.duration_ms, r.response_body, r.error
    from upd join r using (tenant_id, subscription_id, event_id)
    returning 1`);
  return rowsOf(result).length;
}
