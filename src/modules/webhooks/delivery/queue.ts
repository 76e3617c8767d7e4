import { sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { isCitus } from '../../../db/citus-runtime.js';
import { type Queryable, rowsOf } from '../../../db/client.js';
import type { DeliveryStatus, WebhookFormat } from '../tables.js';
import { ATTEMPT_TEXT_LIMIT, storableText } from './storable-text.js';

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
  /** How the delivery is made: our body and signatures, ACP's or UCP's (tables.ts). */
  format: WebhookFormat;
  /** `ucp` targets: the seller's profile URL, sent as `UCP-Agent`. */
  agentProfileUrl: string | null;
  /** Null for `ucp` targets (signed with the seller's key). */
  secretCiphertext: string | null;
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
  format: WebhookFormat;
  agent_profile_url: string | null;
  secret_ciphertext: string | null;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | string | null;
}

/**
 * What a claim may still take, per tenant and per receiver (webhook URL), with a default for
 * those not listed: the worker's fair share of its slots (delivery/fair-share.ts).
 */
export interface ClaimRooms {
  tenantDefault: number;
  receiverDefault: number;
  /** Tenants and receivers with less room than the default (0: none of theirs is claimed). */
  tenants: Record<string, number>;
  receivers: Record<string, number>;
}

/** Every claim may take all it asks for (no fair-share limits). */
const UNLIMITED = (limit: number): ClaimRooms => ({
  tenantDefault: limit,
  receiverDefault: limit,
  tenants: {},
  receivers: {},
});

/** Due rows looked at per row claimed: a tenant or receiver at its limit leaves the rest to others. */
const CANDIDATES_PER_CLAIM = 4;

const asDate = (value: Date | string) => (value instanceof Date ? value : new Date(value));

/**
 * Claims up to `limit` due deliveries of active subscriptions, oldest due first, with
 * `FOR UPDATE SKIP LOCKED` so concurrent workers never claim the same row. A claim is a lease:
 * the row's `next_attempt_at` moves to `now + leaseMs` under a fresh token, so a worker that dies
 * before writing the result leaves the delivery due again once the lease ends.
 *
 * On Citus the one statement cannot run across shards (a locking, ctid-addressed update is only
 * possible inside one shard), so it claims with the same statement pinned to one tenant at a
 * time, each routed to the one node holding that tenant: the tenants wake-ups named, and those
 * found by asking every shard which have due deliveries.
 */
export async function claimDueDeliveries(
  db: Queryable,
  now: Date,
  limit: number,
  leaseMs: number,
  /** Only these tenants' deliveries (a worker pinned to some tenants; tests); all when absent. */
  tenantIds?: readonly string[],
  /** Tenants that just queued deliveries (wake-ups name them): on Citus, claimed from first. */
  hinted: readonly string[] = [],
  /** The most claimed per tenant and per receiver (the worker's fair share); no limit when absent. */
  rooms: ClaimRooms = UNLIMITED(limit),
): Promise<ClaimedDelivery[]> {
  const lease = { token: uuidv7(), until: new Date(now.getTime() + leaseMs), rooms };
  if (!(await isCitus(db))) return claimIn(db, now, limit, lease, tenantIds);
  // The question to every shard is the expensive part. Claims go by the tenants it found and the
  // tenants wake-ups named, one single-shard statement each; every shard is asked again at most
  // once per REASK_MS, so a retry that came due or a lost wake-up waits at most that long.
  if (tenantIds) return claimFrom(db, new Set(tenantIds), now, limit, lease);
  const due = dueTenantsOf(db);
  for (const tenantId of hinted) due.tenants.add(tenantId);
  if (Date.now() - due.askedAt >= REASK_MS) {
    due.askedAt = Date.now();
    for (const tenantId of await tenantsWithDueDeliveries(db, now, limit)) due.tenants.add(tenantId);
  }
  return claimFrom(db, due.tenants, now, limit, lease);
}

/** Per database handle (Citus): tenants believed to have due deliveries, and when every shard was last asked. */
const dueTenantsByHandle = new WeakMap<object, { tenants: Set<string>; askedAt: number }>();
const REASK_MS = 1_000;

function dueTenantsOf(db: Queryable) {
  let due = dueTenantsByHandle.get(db);
  if (!due) {
    due = { tenants: new Set(), askedAt: 0 };
    dueTenantsByHandle.set(db, due);
  }
  return due;
}

/**
 * Claims up to `limit` from `tenants`, one single-tenant statement each (Citus). Each tenant's
 * turn asks for an even part of what is left, within its room, so tenants take turns within one
 * claim as the single statement on PostgreSQL makes them; what each statement took is taken off
 * the rooms the next ones see (a receiver shared by tenants, a tenant's second turn). A tenant
 * that yields less than asked has run dry (or is at its share) and leaves the set; the others go
 * to the back.
 */
async function claimFrom(
  db: Queryable,
  tenants: Set<string>,
  now: Date,
  limit: number,
  lease: Lease,
): Promise<ClaimedDelivery[]> {
  const claimed: ClaimedDelivery[] = [];
  let rooms = lease.rooms;
  for (let round = 0; round < 2 && claimed.length < limit && tenants.size > 0; round++) {
    const share = Math.ceil((limit - claimed.length) / tenants.size);
    for (const tenantId of [...tenants]) {
      const room = rooms.tenants[tenantId] ?? rooms.tenantDefault;
      const asked = Math.min(share, room, limit - claimed.length);
      if (asked <= 0) continue;
      const got = await claimIn(db, now, asked, { ...lease, rooms }, [tenantId]);
      claimed.push(...got);
      rooms = roomsLeft(rooms, got);
      tenants.delete(tenantId);
      if (got.length === asked) tenants.add(tenantId);
      if (claimed.length >= limit) break;
    }
  }
  return claimed;
}

/** The rooms once `got` is claimed: one less for each one's tenant and receiver. */
function roomsLeft(rooms: ClaimRooms, got: readonly ClaimedDelivery[]): ClaimRooms {
  const tenants = { ...rooms.tenants };
  const receivers = { ...rooms.receivers };
  for (const d of got) {
    tenants[d.tenantId] = (tenants[d.tenantId] ?? rooms.tenantDefault) - 1;
    receivers[d.url] = (receivers[d.url] ?? rooms.receiverDefault) - 1;
  }
  return { ...rooms, tenants, receivers };
}

/** Tenants with due deliveries of active subscriptions, the longest waiting first (Citus). */
async function tenantsWithDueDeliveries(db: Queryable, now: Date, limit: number): Promise<string[]> {
  const result = await db.execute(sql`
    select d.tenant_id
    from webhook_deliveries d
    join webhook_subscriptions s on s.tenant_id = d.tenant_id and s.id = d.subscription_id
    where d.status in ('pending', 'failed') and d.next_attempt_at <= ${now} and s.is_active
    group by d.tenant_id
    order by min(d.next_attempt_at)
    limit ${limit}`);
  return rowsOf<{ tenant_id: string }>(result).map((r) => r.tenant_id);
}

/** `and <alias>.tenant_id in (...)`, or nothing when every tenant is meant. */
function tenantIn(alias: string, tenantIds?: readonly string[]) {
  if (!tenantIds) return sql``;
  return sql`and ${sql.raw(alias)}.tenant_id in (${sql.join(
    tenantIds.map((id) => sql`${id}::uuid`),
    sql`, `,
  )})`;
}

interface Lease {
  token: string;
  until: Date;
  rooms: ClaimRooms;
}

/**
 * The claim. Candidates are the oldest due rows of tenants and receivers with room left (a
 * bounded look-ahead), locked as they are found (`SKIP LOCKED`), so a concurrent claim passes
 * over them to the next ones instead of choosing the same rows and coming back empty; each
 * tenant's and receiver's first n of them fit, n its room; of those, tenants take turns (every
 * tenant's oldest, then every tenant's second, ...) for the rows leased. Candidates not chosen
 * are released when the statement ends. The due conditions are repeated where the chosen rows
 * are addressed: a row another worker leased meanwhile is re-checked there and passed over.
 */
async function claimIn(
  db: Queryable,
  now: Date,
  limit: number,
  lease: Lease,
  tenantIds?: readonly string[],
): Promise<ClaimedDelivery[]> {
  const leaseToken = lease.token;
  const { rooms } = lease;
  const roomsJson = JSON.stringify({ tenants: rooms.tenants, receivers: rooms.receivers });
  const tenantRoom = sql`coalesce((${roomsJson}::jsonb -> 'tenants' ->> d.tenant_id::text)::int, ${rooms.tenantDefault}::int)`;
  const receiverRoom = sql`coalesce((${roomsJson}::jsonb -> 'receivers' ->> s.url)::int, ${rooms.receiverDefault}::int)`;
  // The tenant filter on every table of both halves: with one tenant, Citus routes it to one shard.
  const result = await db.execute(sql`
    with candidates as (
      select row_ref, next_attempt_at, tenant_room, receiver_room,
        row_number() over (partition by tenant_id order by next_attempt_at) as tenant_rank,
        row_number() over (partition by url order by next_attempt_at) as receiver_rank
      from (
        select d.ctid as row_ref, d.tenant_id, s.url, d.next_attempt_at,
          ${tenantRoom} as tenant_room, ${receiverRoom} as receiver_room
        from webhook_deliveries d
        join webhook_subscriptions s on s.tenant_id = d.tenant_id and s.id = d.subscription_id
        where d.status in ('pending', 'failed') and d.next_attempt_at <= ${now} and s.is_active
          and ${tenantRoom} > 0 and ${receiverRoom} > 0
          ${tenantIn('d', tenantIds)} ${tenantIn('s', tenantIds)}
        order by d.next_attempt_at
        limit ${limit * CANDIDATES_PER_CLAIM}
        for update of d skip locked
      ) c
    ),
    due as (
      select d.ctid
      from webhook_deliveries d
      where d.ctid = any(array(
          select row_ref from candidates
          where tenant_rank <= tenant_room and receiver_rank <= receiver_room
          order by tenant_rank, next_attempt_at
          limit ${limit}))
        and d.status in ('pending', 'failed') and d.next_attempt_at <= ${now} ${tenantIn('d', tenantIds)}
      for update of d skip locked
    )
    update webhook_deliveries d
    set next_attempt_at = ${lease.until}, lease_token = ${leaseToken}
    from due, events e, webhook_subscriptions s
    where d.ctid = due.ctid ${tenantIn('d', tenantIds)}
      and e.tenant_id = d.tenant_id and e.id = d.event_id
      and s.tenant_id = d.tenant_id and s.id = d.subscription_id
    returning d.ctid::text as row_ref, d.tenant_id, d.subscription_id, d.event_id, d.event_type, d.cycle_attempts,
      e.occurred_at, e.payload, s.url, s.format, s.agent_profile_url, s.secret_ciphertext,
      s.previous_secret_ciphertext, s.previous_secret_expires_at`);
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
    format: r.format,
    agentProfileUrl: r.agent_profile_url,
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
  if (!(await isCitus(db))) return recordIn(db, results, now);
  // Citus: one statement per tenant, pinned to it, so each runs inside the tenant's shard.
  const byTenant = new Map<string, AttemptResult[]>();
  for (const r of results) byTenant.set(r.tenantId, [...(byTenant.get(r.tenantId) ?? []), r]);
  let written = 0;
  for (const [tenantId, batch] of byTenant) written += await recordIn(db, batch, now, tenantId);
  return written;
}

async function recordIn(db: Queryable, results: readonly AttemptResult[], now: Date, tenantId?: string) {
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
      // Storable whatever the sender handed over: text PostgreSQL refuses (NUL, half an emoji)
      // would fail the whole batch, every tenant's results with it.
      response_body: r.responseBody === null ? null : storableText(r.responseBody, ATTEMPT_TEXT_LIMIT),
      error: r.error === null ? null : storableText(r.error, ATTEMPT_TEXT_LIMIT),
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
      where d.ctid = r.row_ref and d.lease_token = r.lease_token ${tenantIn('d', tenantId ? [tenantId] : undefined)}
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

/**
 * Of these subscriptions, the ones still there and active: a worker holding deliveries of the
 * others stops sending them (deleted or disabled meanwhile).
 */
export async function activeSubscriptions(
  db: Queryable,
  keys: readonly { tenantId: string; subscriptionId: string }[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const result = await db.execute(sql`
    select s.tenant_id, s.id from webhook_subscriptions s
    where s.is_active and (s.tenant_id, s.id) in (${sql.join(
      keys.map((k) => sql`(${k.tenantId}::uuid, ${k.subscriptionId}::uuid)`),
      sql`, `,
    )})`);
  return new Set(rowsOf<{ tenant_id: string; id: string }>(result).map((r) => `${r.tenant_id}/${r.id}`));
}
