import { eq, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db, Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { type BillingResult, ok, type RecordedOperation } from '../adapter.js';
import { billingOperations } from './tables.js';

/** What the engine's functions share: its connection, clock, tenant and configuration. */
export interface EngineContext {
  db: Db;
  clock: Clock;
  tenantId: string;
  config: BuiltinConfig;
}

export interface BuiltinConfig {
  /** Unit price of passthrough charges by charge id, minor units (used by quoteCart). */
  passthroughRates?: Record<string, number>;
  /** Unit price of passthrough charges without a rate; without it such lines cannot be quoted. */
  defaultPassthroughUnitCents?: number;
  /** When set, invoices get `hostedInvoiceUrl` = base + '/' + invoice id. */
  hostedInvoiceBaseUrl?: string;
  /** Days from invoice date to due date (default 30). */
  paymentTermsDays?: number;
}

/** What a recorded result holds (`billing_operations.kind`). */
export type RecordKind = 'invoice' | 'subscription' | 'account' | 'payment_method';

/**
 * Runs a change once per idempotency key, in its own transaction, as an external system would:
 * the first successful result is recorded with the change's writes and returned as it was on
 * every repeat. A failure is not recorded: fixing the request and retrying with the same key is
 * allowed. Concurrent calls with one key wait for each other (an advisory lock on the key).
 */
export function once<T>(
  ctx: EngineContext,
  key: string,
  kind: RecordKind,
  work: (tx: Queryable) => Promise<BillingResult<T>>,
): Promise<BillingResult<T>> {
  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`billing-op:${ctx.tenantId}:${key}`}))`);
    const [done] = await tx
      .select({ result: billingOperations.result })
      .from(billingOperations)
      .where(tenantWhere(billingOperations, ctx.tenantId, eq(billingOperations.idempotencyKey, key)));
    if (done) return done.result as BillingResult<T>;
    const result = await work(tx);
    if (!result.ok) return result;
    await tx
      .insert(billingOperations)
      .values({ tenantId: ctx.tenantId, idempotencyKey: key, kind, result, createdAt: ctx.clock.now() });
    return result;
  });
}

/** What the engine did under `key`: the recorded result, or null when no call with it took effect. */
export async function findOperation(
  ctx: EngineContext,
  key: string,
): Promise<BillingResult<RecordedOperation | null>> {
  const [row] = await ctx.db
    .select({ kind: billingOperations.kind, result: billingOperations.result })
    .from(billingOperations)
    .where(tenantWhere(billingOperations, ctx.tenantId, eq(billingOperations.idempotencyKey, key)));
  if (!row) return ok(null);
  const value = (row.result as { ok: true; value: unknown }).value;
  if (row.kind === 'invoice') return ok({ kind: 'invoice', invoice: value as never });
  if (row.kind === 'subscription') return ok({ kind: 'subscription', change: value as never });
  return ok({ kind: 'other', result: value });
}
