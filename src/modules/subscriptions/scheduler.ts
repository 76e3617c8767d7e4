import { systemContext } from '../../core/context.js';
import { derivedKey, type ServiceDeps } from '../../unit-of-work/index.js';
import { billedAheadUntil } from './amounts/figures.js';
import { endSubscription } from './end.js';
import { moveIntoBilledPeriod, renewSubscription } from './renew.js';
import { dueSubscriptions, getSubscription } from './service.js';

export interface DueWorkResult {
  renewed: number;
  cancelled: number;
  /** Subscriptions whose work failed this run (left as they were; retried on the next run). */
  failed: { subscriptionId: string; error: string }[];
}

const BATCH = 100;
/** A subscription overdue by many periods (the worker was down) catches up at most this many per run. */
const MAX_PERIODS_PER_RUN = 24;

/**
 * The scheduler's work at `deps.clock.now()`: every live subscription whose period has ended is
 * cancelled (pending_cancellation), or has its pending change applied and is renewed (new
 * period, invoice, payment session, `subscription.renewed`); a period an early renewal billed
 * already (`billedThrough`) starts without a second invoice or session, also for a subscription
 * ending (pending_cancellation), which is cancelled when that period ends. Each subscription is its own
 * transaction; a failure (billing outage) leaves it due for the next run. Events carry no userId.
 * `options.tenantId` limits the run to one tenant (tests that share a database).
 */
export async function runDueSubscriptionWork(
  deps: ServiceDeps,
  options: { tenantId?: string } = {},
): Promise<DueWorkResult> {
  const result: DueWorkResult = { renewed: 0, cancelled: 0, failed: [] };
  const failed = new Set<string>();
  const periods = new Map<string, number>();
  for (;;) {
    const now = deps.clock.now();
    const due = (await dueSubscriptions(deps.db, now, BATCH + failed.size, options.tenantId)).filter(
      (d) => !failed.has(d.id) && (periods.get(d.id) ?? 0) < MAX_PERIODS_PER_RUN,
    );
    if (due.length === 0) return result;
    for (const { tenantId, id } of due) {
      try {
        const sub = await getSubscription(deps.db, tenantId, id);
        if (!sub || sub.status === 'cancelled' || sub.currentPeriodEnd > deps.clock.now()) {
          failed.add(id); // nothing to do after all: not looked at again in this run
          continue;
        }
        // Ending, but the next period was billed early: it runs that period first (it was paid for).
        const ending = sub.status === 'pending_cancellation';
        const cancelling = ending && !billedAheadUntil(sub);
        // One operation per subscription and period end: a run repeated after a crash is the same
        // operation, so its billing calls repeat under the same keys.
        const key = derivedKey([
          'subscriptions.period-end',
          tenantId,
          id,
          sub.currentPeriodEnd.toISOString(),
        ]);
        const ctx = systemContext(tenantId, `scheduler:${id}`);
        if (cancelling) await endSubscription(deps, ctx, sub, key);
        else if (ending) await moveIntoBilledPeriod(deps, ctx, sub, key);
        else await renewSubscription(deps, ctx, { subscriptionId: id }, key);
        periods.set(id, (periods.get(id) ?? 0) + 1);
        if (cancelling) result.cancelled++;
        else result.renewed++;
      } catch (err) {
        failed.add(id);
        result.failed.push({ subscriptionId: id, error: err instanceof Error ? err.message : String(err) });
        deps.logger.warn(
          { err, tenantId, subscriptionId: id },
          'subscription period-end work failed; retried next run',
        );
      }
    }
  }
}

/** Runs the scheduler every `intervalMs` (one run at a time); returns a stop function. */
export function startSubscriptionScheduler(deps: ServiceDeps, intervalMs: number): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    runDueSubscriptionWork(deps)
      .catch((err) => deps.logger.error({ err }, 'subscription scheduler run failed'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
