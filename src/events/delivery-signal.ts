import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';

/** The PostgreSQL channel on which committed deliveries are announced to worker processes. */
export const DELIVERY_CHANNEL = 'webhook_deliveries';

/** At most one NOTIFY per this many ms: bursts of writes cost one message, not one each. */
const NOTIFY_COALESCE_MS = 10;
/** Most tenants one NOTIFY names (36 characters each, well under NOTIFY's 8,000 bytes); more name none. */
const MAX_NAMED_TENANTS = 100;

/**
 * Who queued deliveries: the tenants, or undefined for "someone" (look at every tenant). Workers on
 * Citus claim from the named tenants' shards without asking every shard.
 */
export type QueuedBy = readonly string[] | undefined;

/**
 * "Deliveries were queued": sent after a transaction that wrote deliveries commits, naming its
 * tenant. Workers in this process hear it at once; on PostgreSQL it is also sent as a NOTIFY
 * (outside the write's transaction, coalesced; the payload lists the tenants) for workers in
 * other processes. Lost signals cost only latency: workers also poll.
 */
export class DeliverySignal {
  private readonly listeners = new Set<(queuedBy: QueuedBy) => void>();
  private notifyTimer: NodeJS.Timeout | undefined;
  /** Tenants for the next NOTIFY; undefined once an unnamed signal or too many tenants came. */
  private pending: Set<string> | undefined = new Set();

  constructor(private readonly publish?: (payload: string) => Promise<unknown>) {}

  queued(tenantId?: string): void {
    const queuedBy = tenantId === undefined ? undefined : [tenantId];
    for (const listener of this.listeners) listener(queuedBy);
    if (!this.publish) return;
    if (tenantId === undefined || (this.pending && this.pending.size >= MAX_NAMED_TENANTS))
      this.pending = undefined;
    else this.pending?.add(tenantId);
    if (this.notifyTimer) return;
    this.notifyTimer = setTimeout(() => {
      const payload = this.pending ? [...this.pending].join(',') : '';
      this.notifyTimer = undefined;
      this.pending = new Set();
      this.publish?.(payload).catch(() => {}); // polling covers a lost NOTIFY
    }, NOTIFY_COALESCE_MS);
    this.notifyTimer.unref();
  }

  /** Calls `listener` on every signal from this process; returns the unsubscribe. */
  subscribe(listener: (queuedBy: QueuedBy) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A NOTIFY payload back into who queued: an empty payload names no one. */
export function queuedByOf(payload: string | undefined): QueuedBy {
  return payload ? payload.split(',') : undefined;
}

/** The signal for a database: NOTIFY to other processes on PostgreSQL, in-process only on PGlite. */
export function deliverySignalFor(database: Database): DeliverySignal {
  if (database.kind !== 'postgres') return new DeliverySignal();
  return new DeliverySignal((payload) =>
    database.db.execute(sql`select pg_notify(${DELIVERY_CHANNEL}, ${payload})`),
  );
}
