import { sql } from 'drizzle-orm';
import { type Queryable, rowsOf } from '../../../db/client.js';

/**
 * The delivery queue of every tenant, for the operator's metrics: deliveries waiting to be sent
 * (pending, or failed and due again; dead letters and sent ones are done) and the age of the
 * oldest. The worker's partial index (`webhook_deliveries_due_idx`) holds exactly these rows, so
 * the read is bounded by the queue, not the table.
 */
export async function deliveryQueueStats(
  db: Queryable,
  now: Date,
): Promise<{ depth: number; oldestAgeSeconds: number | null }> {
  const [row] = rowsOf<{ n: string | number; oldest: string | Date | null }>(
    await db.execute(
      sql`select count(*) as n, min(created_at) as oldest from webhook_deliveries
          where status in ('pending', 'failed') and next_attempt_at is not null`,
    ),
  );
  const oldest = row?.oldest ? new Date(row.oldest) : null;
  return {
    depth: Number(row?.n ?? 0),
    oldestAgeSeconds: oldest ? Math.max(0, Math.round((now.getTime() - oldest.getTime()) / 1000)) : null,
  };
}
