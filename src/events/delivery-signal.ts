import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';

/** The PostgreSQL channel on which committed deliveries are announced to worker processes. */
export const DELIVERY_CHANNEL = 'webhook_deliveries';

/** At most one NOTIFY per this many ms: bursts of writes cost one message, not one each. */
const NOTIFY_COALESCE_MS = 10;

/**
 * "Deliveries were queued": sent after a transaction that wrote deliveries commits. Workers in
 * this process hear it at once; on PostgreSQL it is also sent as a NOTIFY (outside the write's
 * transaction, coalesced) for workers in other processes. Lost signals cost only latency:
 * workers also poll.
 */
export class DeliverySignal {
  private readonly listeners = new Set<() => void>();
  private notifyTimer: NodeJS.Timeout | undefined;

  constructor(private readonly publish?: () => Promise<unknown>) {}

  queued(): void {
    for (const listener of this.listeners) listener();
    if (!this.publish || this.notifyTimer) return;
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      this.publish?.().catch(() => {}); // polling covers a lost NOTIFY
    }, NOTIFY_COALESCE_MS);
    this.notifyTimer.unref();
  }

  /** Calls `listener` on every signal from this process; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The signal for a database: NOTIFY to other processes on PostgreSQL, in-process only on PGlite. */
export function deliverySignalFor(database: Database): DeliverySignal {
  if (database.kind !== 'postgres') return new DeliverySignal();
  return new DeliverySignal(() => database.db.execute(sql`select pg_notify(${DELIVERY_CHANNEL}, '')`));
}
