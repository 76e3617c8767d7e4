import { createHash, randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { type BillingResult, BillingUnavailableError } from '../billing/adapter.js';
import type { Clock } from '../clock.js';
import type { OperationContext } from '../core/context.js';
import { AppError } from '../core/errors.js';
import { type Db, type Queryable, rowsOf, type Tx } from '../db/client.js';
import { jsonParam } from '../db/sql-params.js';
import { tenantWhere } from '../db/tenant-scope.js';
import type { OperationKey } from './operation-key.js';
import type { OperationName } from './operation-names.js';
import {
  type EffectKind,
  type EffectRecord,
  type IntentRecovery,
  type IntentStatus,
  intents,
} from './tables.js';

/**
 * External effects (billing today, payment providers later) go through one mechanism:
 *
 * 1. `beginIntent` commits an intent row BEFORE the first call: the operation, its plan (what
 *    finishing or undoing it needs) and its steps. Each step's billing idempotency key is derived
 *    from the tenant, the operation id, the attempt and the step, so the same operation sent again
 *    repeats the same calls and the billing system applies them once.
 * 2. `intent.call(step, ...)` makes each call with its key and records what it did.
 * 3. The operation's unit of work closes the intent (`intent.complete(u)`) in the same transaction
 *    as the local record of the outcome.
 *
 * An intent left pending (crash, timeout, 5xx, process killed between the call and the commit) is
 * taken up when its lease runs out, by a retry of the same operation or by the reconciler
 * (reconciler.ts), which completes the local record (`roll_forward`: changes of an existing
 * resource) or undoes the calls (`compensate`: creations nobody was told of), so that afterwards
 * both systems agree.
 */

/** How long an operation owns its intent before a retry or the reconciler may take it over (default). */
export const INTENT_LEASE_MS = 30_000;

/** What beginning, taking over and closing intents need. */
export interface IntentDeps {
  db: Db;
  clock: Clock;
  config?: { intentLeaseMs: number };
}

const leaseOf = (deps: { config?: { intentLeaseMs: number } }) =>
  deps.config?.intentLeaseMs ?? INTENT_LEASE_MS;

export type IntentRow = typeof intents.$inferSelect;

export interface IntentStep {
  step: string;
  kind: EffectKind;
}

export interface IntentSpec<P> {
  /** What runs, e.g. `subscriptions.create`; roll-forward intents are resumed by this name. */
  operation: OperationName;
  recovery: IntentRecovery;
  subject?: { type: string; id: string };
  plan: P;
  steps: readonly IntentStep[];
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** The billing idempotency key of one step: deterministic from the tenant and the operation. */
export const effectKey = (row: Pick<IntentRow, 'tenantId' | 'operationId' | 'attempt'>, step: string) =>
  `cak_${digest(`${row.tenantId}:${row.operationId}`)}_${row.attempt}_${step}`;

const busy = (message: string) => new AppError('idempotency_in_flight', message, undefined, 1);

/**
 * Commits the intent of `key`'s operation (in `q`: a transaction of the caller's, or the pool).
 * The same operation's intent, left pending with its lease run out, is taken over with its stored
 * plan and the same keys: use `intent.plan`, not the plan just computed. One closed without
 * completing (refused, compensated, abandoned) is opened again as a new attempt with new keys.
 * Still leased or completed: 409 idempotency_in_flight (retry to get the stored answer).
 */
export async function beginIntent<P>(
  q: Queryable,
  deps: { clock: Clock; config?: { intentLeaseMs: number } },
  ctx: OperationContext,
  key: Pick<OperationKey, 'id'>,
  spec: IntentSpec<P>,
): Promise<Intent<P>> {
  const now = deps.clock.now();
  const effects: EffectRecord[] = spec.steps.map((s) => ({ ...s, outcome: 'pending' }));
  const token = randomUUID();
  const leaseUntil = new Date(now.getTime() + leaseOf(deps));
  const result = await q.execute(sql`
    insert into intents (tenant_id, id, operation_id, operation, recovery, status, attempt, subject_type,
      subject_id, plan, effects, actor_key_id, actor_user_id, request_id, lease_token, lease_until, runs, created_at,
      updated_at)
    values (${ctx.tenantId}, ${uuidv7()}, ${key.id}, ${spec.operation}, ${spec.recovery}, 'pending', 1,
      ${spec.subject?.type ?? null}, ${spec.subject?.id ?? null}, ${jsonParam(spec.plan)}::jsonb,
      ${jsonParam(effects)}::jsonb, ${ctx.keyId}, ${ctx.userId ?? null}, ${ctx.requestId}, ${token}, ${leaseUntil.toISOString()}::timestamptz,
      1, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)
    on conflict (tenant_id, operation_id) do update set
      attempt = intents.attempt + (case when intents.status = 'pending' then 0 else 1 end),
      plan = case when intents.status = 'pending' then intents.plan else excluded.plan end,
      effects = case when intents.status = 'pending' then intents.effects else excluded.effects end,
      status = 'pending', lease_token = excluded.lease_token, lease_until = excluded.lease_until,
      runs = intents.runs + 1, updated_at = excluded.updated_at, closed_at = null, resolved_by = null
    where intents.status in ('failed', 'compensated', 'abandoned')
      or (intents.status = 'pending' and intents.lease_until <= excluded.updated_at)
    returning *`);
  const [taken] = rowsOf<Record<string, unknown>>(result);
  if (taken) return new Intent<P>(fromSql(taken));
  const [existing] = await q
    .select()
    .from(intents)
    .where(tenantWhere(intents, ctx.tenantId, eq(intents.operationId, key.id)));
  if (existing?.status === 'attention')
    throw new AppError(
      'conflict',
      `This operation was stopped for an operator's review (intent ${existing.id}); send a new request with a new Idempotency-Key`,
    );
  if (existing?.status === 'completed')
    throw busy('This operation has completed; retry the same request to receive its stored result');
  throw busy('This operation is still being processed; retry shortly');
}

/** A raw `returning *` row as the Drizzle row type (snake_case to camelCase, timestamps as Dates). */
function fromSql(r: Record<string, unknown>): IntentRow {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
  return {
    tenantId: r.tenant_id as string,
    id: r.id as string,
    operationId: r.operation_id as string,
    operation: r.operation as string,
    recovery: r.recovery as IntentRecovery,
    status: r.status as IntentStatus,
    attempt: Number(r.attempt),
    subjectType: (r.subject_type as string | null) ?? null,
    subjectId: (r.subject_id as string | null) ?? null,
    plan: json(r.plan),
    effects: json(r.effects) as EffectRecord[],
    actorKeyId: (r.actor_key_id as string | null) ?? null,
    actorUserId: (r.actor_user_id as string | null) ?? null,
    requestId: r.request_id as string,
    leaseToken: (r.lease_token as string | null) ?? null,
    leaseUntil: date(r.lease_until) as Date,
    runs: Number(r.runs),
    lastError: (r.last_error as string | null) ?? null,
    resolvedBy: (r.resolved_by as string | null) ?? null,
    createdAt: date(r.created_at) as Date,
    updatedAt: date(r.updated_at) as Date,
    closedAt: date(r.closed_at),
  };
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** An intent this process holds the lease of. */
export class Intent<P = unknown> {
  readonly effects: EffectRecord[];

  constructor(readonly row: IntentRow) {
    this.effects = row.effects.map((e) => ({ ...e }));
  }

  get id() {
    return this.row.id;
  }
  /**
   * Who acts when the operation is finished later (a retry, the reconciler): the key or the console
   * user that asked, as then.
   */
  get context(): OperationContext {
    return {
      tenantId: this.row.tenantId,
      keyId: this.row.actorKeyId,
      userId: this.row.actorUserId,
      requestId: this.row.requestId,
    };
  }
  get plan(): P {
    return this.row.plan as P;
  }
  keyFor(step: string): string {
    return effectKey(this.row, step);
  }

  private effect(step: string): EffectRecord {
    const found = this.effects.find((e) => e.step === step);
    if (!found) throw new Error(`intent ${this.row.operation} has no step ${step}`);
    return found;
  }

  /**
   * Makes one step's call with its idempotency key and records the outcome: `applied` with what
   * it created (`resources`), `refused` for a failure value, `unknown` when it threw (rethrown).
   */
  async call<T>(
    step: string,
    call: (idempotencyKey: string) => Promise<BillingResult<T>>,
    resources?: (value: T) => EffectRecord['resources'],
  ): Promise<BillingResult<T>> {
    const effect = this.effect(step);
    // What an earlier attempt of this step (same key) may have done, before this one.
    const earlier = effect.outcome;
    try {
      const result = await call(this.keyFor(step));
      if (result.ok) {
        effect.outcome = 'applied';
        const made = resources?.(result.value);
        if (made) effect.resources = made;
        delete effect.error;
      } else {
        effect.outcome = 'refused';
        effect.error = result.failure.message;
      }
      return result;
    } catch (err) {
      // An outage known to have sent nothing changed nothing now; any other may have taken effect.
      // Nothing sent now says nothing of an earlier attempt that may have applied (found by the
      // model-based test: a retry failing before the call hid a change the first attempt made).
      const sentNothing = err instanceof BillingUnavailableError && err.effect === 'none';
      const earlierMayHaveApplied = earlier === 'applied' || earlier === 'unknown';
      effect.outcome = sentNothing && !earlierMayHaveApplied ? 'not_applied' : 'unknown';
      effect.error = message(err);
      throw err;
    }
  }

  /** Whether a call may have changed the billing system. */
  get touched(): boolean {
    return this.effects.some((e) => e.outcome === 'applied' || e.outcome === 'unknown');
  }

  /**
   * In the operation's unit of work: closes the intent as completed with what its calls did. When
   * the lease was lost meanwhile (a retry or the reconciler took it over) the unit rolls back.
   */
  async complete(u: { tx: Tx; now: Date }, resolvedBy: 'operation' | 'reconciler' = 'operation') {
    const closed = await u.tx
      .update(intents)
      .set({
        status: 'completed',
        effects: this.effects,
        leaseToken: null,
        resolvedBy,
        lastError: null,
        updatedAt: u.now,
        closedAt: u.now,
      })
      .where(this.owned())
      .returning({ id: intents.id });
    if (closed.length === 0)
      throw busy('This operation was taken over while it ran (a retry or the reconciler); retry shortly');
  }

  owned() {
    return tenantWhere(
      intents,
      this.row.tenantId,
      eq(intents.id, this.row.id),
      eq(intents.status, 'pending'),
      this.row.leaseToken ? eq(intents.leaseToken, this.row.leaseToken) : undefined,
    );
  }

  /** Closes the intent (outside the unit of work) as `status`; false when the lease was lost. */
  async close(
    q: Queryable,
    now: Date,
    status: Exclude<IntentStatus, 'pending' | 'completed'>,
    detail: { error?: string; resolvedBy?: string } = {},
  ): Promise<boolean> {
    const rows = await q
      .update(intents)
      .set({
        status,
        effects: this.effects,
        leaseToken: null,
        lastError: detail.error ?? null,
        resolvedBy: detail.resolvedBy ?? 'operation',
        updatedAt: now,
        closedAt: now,
      })
      .where(this.owned())
      .returning({ id: intents.id });
    return rows.length > 0;
  }

  /**
   * Gives the lease up at once, leaving the intent pending: a retry of the operation, or the
   * reconciler's next pass, takes it up without waiting for the lease to run out.
   */
  async release(q: Queryable, now: Date, error: unknown): Promise<void> {
    await q
      .update(intents)
      .set({ effects: this.effects, leaseUntil: now, lastError: message(error), updatedAt: now })
      .where(this.owned());
  }
}

/**
 * The plan of `operationId`'s intent while it is pending (a retry finds what the first attempt
 * decided and reserved, and resumes it instead of deciding again); null otherwise.
 */
export async function pendingPlanOf<P>(
  q: Queryable,
  tenantId: string,
  operationId: string,
): Promise<P | null> {
  const [row] = await q
    .select({ plan: intents.plan })
    .from(intents)
    .where(
      tenantWhere(intents, tenantId, eq(intents.operationId, operationId), eq(intents.status, 'pending')),
    );
  return row ? (row.plan as P) : null;
}

/** The pending intents whose lease has run out, oldest first: the reconciler's work list. */
export async function expiredIntents(db: Queryable, now: Date, limit: number, tenantId?: string) {
  return db
    .select()
    .from(intents)
    .where(
      and(
        eq(intents.status, 'pending'),
        sql`${intents.leaseUntil} <= ${now.toISOString()}::timestamptz`,
        tenantId ? eq(intents.tenantId, tenantId) : undefined,
      ),
    )
    .orderBy(intents.leaseUntil, intents.id)
    .limit(limit);
}

/** Takes the lease of a pending intent whose lease has run out (the reconciler); null when another did. */
export async function takeOver(
  deps: { db: Queryable; config?: { intentLeaseMs: number } },
  row: IntentRow,
  now: Date,
): Promise<Intent | null> {
  const db = deps.db;
  const token = randomUUID();
  const [taken] = await db
    .update(intents)
    .set({
      leaseToken: token,
      leaseUntil: new Date(now.getTime() + leaseOf(deps)),
      runs: sql`${intents.runs} + 1`,
      updatedAt: now,
    })
    .where(
      tenantWhere(
        intents,
        row.tenantId,
        eq(intents.id, row.id),
        eq(intents.status, 'pending'),
        sql`${intents.leaseUntil} <= ${now.toISOString()}::timestamptz`,
      ),
    )
    .returning();
  return taken ? new Intent(taken) : null;
}

/** Count and age of the pending intents of every tenant, for /readyz. */
export async function pendingIntentStats(
  db: Queryable,
  now: Date,
): Promise<{ pending: number; oldestAgeSeconds: number | null }> {
  const [row] = rowsOf<{ n: string | number; oldest: string | Date | null }>(
    await db.execute(
      sql`select count(*) as n, min(created_at) as oldest from intents where status = 'pending'`,
    ),
  );
  const oldest = row?.oldest ? new Date(row.oldest) : null;
  return {
    pending: Number(row?.n ?? 0),
    oldestAgeSeconds: oldest ? Math.max(0, Math.round((now.getTime() - oldest.getTime()) / 1000)) : null,
  };
}
