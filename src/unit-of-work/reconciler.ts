import { compensate } from './compensation.js';
import type { ResumeIntent, ServiceDeps } from './deps.js';
import { expiredIntents, type Intent, takeOver } from './intents.js';
import type { OperationName } from './operation-names.js';

export interface ReconcileReport {
  examined: number;
  /** Roll-forward intents whose operation was finished. */
  completed: number;
  compensated: number;
  /** Compensate intents none of whose calls had taken effect. */
  abandoned: number;
  attention: number;
  /** Left pending for the next pass (the billing system or the database failed meanwhile). */
  retried: number;
}

export interface ReconcileOptions {
  /** The instant leases are judged at (default: the clock's now). */
  now?: Date;
  /** Only this tenant's intents (tests sharing a database). */
  tenantId?: string;
  limit?: number;
}

const BATCH = 100;

async function reconcileOne(deps: ServiceDeps, intent: Intent, report: ReconcileReport) {
  const now = deps.clock.now();
  if (intent.row.recovery === 'roll_forward') {
    const resume = deps.intentHandlers[intent.row.operation as OperationName] as ResumeIntent | undefined;
    if (!resume) {
      await intent.close(deps.db, now, 'attention', {
        error: `no handler resumes ${intent.row.operation}`,
        resolvedBy: 'reconciler',
      });
      report.attention++;
      return;
    }
    report[await resume(deps, intent)]++;
    return;
  }
  const adapter = await deps.billing.forTenant(deps.db, intent.row.tenantId);
  if (!adapter) {
    await intent.close(deps.db, now, 'attention', {
      error: 'the tenant has no billing integration to undo the calls with',
      resolvedBy: 'reconciler',
    });
    report.attention++;
    return;
  }
  const undone = await compensate(adapter, intent);
  await intent.close(deps.db, deps.clock.now(), undone.status, {
    error: [intent.row.lastError, ...undone.problems].filter(Boolean).join('; ') || undefined,
    resolvedBy: 'reconciler',
  } as { error?: string; resolvedBy: string });
  report[undone.status]++;
}

/**
 * One pass over the pending intents whose lease has run out (crash, timeout, 5xx, process killed
 * between a billing call and its commit): each is taken over, then rolled forward by its
 * operation's handler or compensated, so that afterwards the billing system and our records
 * agree. An intent whose pass fails (an outage) stays pending and is tried again next pass.
 */
export async function reconcileIntents(
  deps: ServiceDeps,
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const report: ReconcileReport = {
    examined: 0,
    completed: 0,
    compensated: 0,
    abandoned: 0,
    attention: 0,
    retried: 0,
  };
  const now = options.now ?? deps.clock.now();
  const rows = await expiredIntents(deps.db, now, options.limit ?? BATCH, options.tenantId);
  for (const row of rows) {
    const intent = await takeOver(deps, row, now);
    if (!intent) continue; // a retry of the operation, or another reconciler, took it
    report.examined++;
    try {
      await reconcileOne(deps, intent, report);
    } catch (err) {
      report.retried++;
      deps.logger.warn(
        { err, intentId: row.id, operation: row.operation },
        'intent not reconciled; next pass retries',
      );
      await intent.release(deps.db, deps.clock.now(), err).catch(() => {});
    }
  }
  return report;
}

/** Runs a pass every `intervalMs` (one at a time); returns the stop function. */
export function startReconciler(deps: ServiceDeps, intervalMs: number): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    reconcileIntents(deps)
      .then((r) => {
        if (r.examined > 0) deps.logger.info(r, 'reconciled pending intents');
      })
      .catch((err) => deps.logger.error({ err }, 'reconciler pass failed'))
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return () => clearInterval(timer);
}
