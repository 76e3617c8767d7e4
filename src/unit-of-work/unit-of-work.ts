import { type SQL, sql } from 'drizzle-orm';
import type { Clock } from '../clock.js';
import type { OperationContext } from '../core/context.js';
import { type Queryable, rowsOf, type Tx } from '../db/client.js';
import { insideApiTransaction } from '../db/transaction-guard.js';
import type { DeliverySignal } from '../events/delivery-signal.js';
import type { EventType } from '../events/event-types.js';
import { type EventRow, eventRow, eventRowsInsert } from '../events/outbox.js';
import { type AuditInput, auditRow, auditRowsInsert } from './audit-log.js';
import type { OperationKey } from './operation-key.js';

/**
 * What the local part of an operation writes with: its context, the time, and writers whose
 * rows are written together by one statement at the end (audit entries, events and their webhook
 * deliveries, and any statement handed to `write`).
 */
export interface WriteSet {
  ctx: OperationContext;
  now: Date;
  audit(entry: AuditInput): Promise<void>;
  emit(type: EventType, data: unknown): Promise<void>;
  /**
   * Buffers a data-modifying statement (an INSERT) for the final statement; with a `name`, later
   * writes and `require` read what it returns under that name.
   */
  write(statement: SQL, name?: string): void;
  /**
   * A condition over named writes that the final statement checks after writing: when it does not
   * hold, the statement fails with `GuardRefused` and nothing it wrote stays (one statement is
   * atomic). A caller tries a write this way and, refused, takes a slower path.
   */
  require(condition: SQL): void;
  /** For writes that queue webhook deliveries themselves: wake the workers once committed. */
  deliveriesQueued(): void;
}

/** A unit of work in a transaction: the writers, and the transaction for reads, locks and writes. */
export interface UnitOfWork extends WriteSet {
  tx: Tx;
}

/**
 * Given a CTE named `ev` holding the unit's freshly inserted events (`tenant_id, id, type`), the
 * statement that queues what follows from them (webhook deliveries), returning a row per item
 * queued. Owned by the module that owns those tables; the composition root hands it in.
 */
export type EventFanOut = (now: Date, tenantId: string) => SQL;

export interface UnitDeps {
  /** The pool, or a transaction of the caller's (the unit then runs in a savepoint of it). */
  db: Queryable;
  clock: Clock;
  deliveries?: DeliverySignal;
  fanOut: EventFanOut;
}

const GUARD_MARK = 'unit_of_work_guard';

/** A write's `require` did not hold: the statement failed and wrote nothing. */
export class GuardRefused extends Error {
  constructor() {
    super('a condition of the unit of work did not hold; nothing was written');
  }
}

/**
 * 1 when every guard holds; else a cast of our mark to an integer fails the statement. The mark is
 * joined to a subquery so PostgreSQL cannot fold (and raise) it while planning.
 */
const guardCheck = (guards: SQL[]) =>
  sql`case when ${sql.join(guards, sql` and `)} then 1 else (${GUARD_MARK} || (select ''::text))::int end`;

const mentionsGuard = (err: unknown): boolean =>
  err instanceof Error &&
  (err.message.includes(GUARD_MARK) || mentionsGuard((err as { cause?: unknown }).cause));

async function guarded<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw mentionsGuard(err) ? new GuardRefused() : err;
  }
}

/** The writers over `q`; `flush` writes what they buffered in one statement (atomic on its own). */
function bufferOn(
  q: Queryable,
  fanOut: EventFanOut,
  ctx: OperationContext,
  now: Date,
): { set: WriteSet; flush(): Promise<boolean> } {
  const writes: SQL[] = [];
  const guards: SQL[] = [];
  const audits: ReturnType<typeof auditRow>[] = [];
  const outbox: EventRow[] = [];
  const actor = {
    tenantId: ctx.tenantId,
    keyId: ctx.keyId,
    userId: ctx.userId ?? null,
    requestId: ctx.requestId,
  };
  let queued = false;
  const set: WriteSet = {
    ctx,
    now,
    audit: async (entry) => {
      audits.push(auditRow(actor, entry, now));
    },
    emit: async (type, data) => {
      outbox.push(eventRow(ctx.tenantId, type, data, now, ctx.requestId));
    },
    write: (statement, name) => {
      writes.push(sql`${sql.raw(name ?? `w${writes.length}`)} as (${statement})`);
    },
    require: (condition) => {
      guards.push(condition);
    },
    deliveriesQueued: () => {
      queued = true;
    },
  };
  return {
    set,
    /** True when webhook deliveries were queued. */
    async flush() {
      const parts = [...writes];
      if (audits.length > 0) parts.push(sql`audit as (${auditRowsInsert(audits)})`);
      if (outbox.length > 0) {
        // The events, and what follows from them (a delivery per matching webhook subscription).
        parts.push(sql`ev as (${eventRowsInsert(outbox)})`);
        // The fan-out as one more CTE under a plain select: Citus then runs each part on the
        // tenant's node (as the tail of an INSERT ... SELECT it would visit every shard).
        parts.push(sql`fan as (${fanOut(now, ctx.tenantId)})`);
      }
      if (parts.length === 0) return queued;
      if (guards.length > 0) {
        // One row always (the guard must be evaluated even when nothing was fanned out).
        const fanned = outbox.length > 0 ? sql`(select count(*) from fan)` : sql`0`;
        const result = await guarded(() =>
          q.execute(
            sql`with ${sql.join(parts, sql`, `)} select ${guardCheck(guards)} as checked, ${fanned} as fanned`,
          ),
        );
        return queued || Number(rowsOf<{ fanned: unknown }>(result)[0]?.fanned ?? 0) > 0;
      }
      if (outbox.length > 0) {
        const result = await q.execute(sql`with ${sql.join(parts, sql`, `)} select 1 from fan`);
        return queued || rowsOf(result).length > 0;
      }
      await q.execute(sql`with ${sql.join(parts, sql`, `)} select 1`);
      return queued;
    },
  };
}

/**
 * Runs the local part of an operation: `work` (the change, its audit entries and events) and the
 * caller's hooks (the HTTP edge stores the idempotent response) commit in ONE transaction, or
 * nothing does. The same function serves requests, the subscription scheduler, provider events
 * and the reconciler. Billing adapters and the root handle refuse to run inside it
 * (src/db/transaction-guard.ts): external effects happen before, through an intent.
 *
 * `buffered`: for work that reads and locks nothing (it only buffers through the WriteSet). Unless
 * the caller's hooks need a transaction, everything is then written by one statement with no
 * BEGIN/COMMIT around it: one round trip, and a single statement is atomic.
 */
export function runUnitOfWork<T>(
  deps: UnitDeps,
  ctx: OperationContext,
  key: OperationKey<T>,
  work: (u: UnitOfWork) => Promise<T>,
): Promise<T>;
export function runUnitOfWork<T>(
  deps: UnitDeps,
  ctx: OperationContext,
  key: OperationKey<T>,
  work: (u: WriteSet) => Promise<T>,
  options: { buffered: true },
): Promise<T>;
export async function runUnitOfWork<T>(
  deps: UnitDeps,
  ctx: OperationContext,
  key: OperationKey<T>,
  work: (u: UnitOfWork) => Promise<T>,
  options: { buffered?: boolean } = {},
): Promise<T> {
  const now = deps.clock.now();
  const hooks = key.hooks;
  if (options.buffered && !hooks?.transactional) {
    const { set, flush } = bufferOn(deps.db, deps.fanOut, ctx, now);
    const result = await insideApiTransaction(() => (work as (u: WriteSet) => Promise<T>)(set));
    // The response is made before the write, so one that cannot be sent leaves nothing written.
    await hooks?.beforeCommit?.(result, null);
    if (await flush()) deps.deliveries?.queued(ctx.tenantId);
    return result;
  }
  const { result, queued } = await deps.db.transaction((tx) =>
    insideApiTransaction(async () => {
      const { set, flush } = bufferOn(tx, deps.fanOut, ctx, now);
      const result = await work({ ...set, tx });
      await hooks?.beforeCommit?.(result, tx);
      return { result, queued: await flush() };
    }),
  );
  if (queued) deps.deliveries?.queued(ctx.tenantId);
  return result;
}
