import type { Deps } from './deps.js';
import { startCreditExpiry } from './modules/credits/index.js';
import { startSubscriptionScheduler } from './modules/subscriptions/index.js';
import { startDeliveryWorker } from './modules/webhooks/index.js';
import { startReconciler } from './unit-of-work/index.js';

/** How often the scheduler looks for subscriptions whose period ended. */
const SCHEDULER_INTERVAL_MS = 60_000;

/**
 * The work no request drives: webhook delivery, the subscription scheduler (renewals,
 * end-of-period changes and cancellations) and the reconciler of intents left pending (billing
 * calls whose operation crashed or timed out before its commit). It runs inside the server
 * (`WEBHOOK_WORKER`, the default) or alone (`npm run worker`, PostgreSQL). Several may run at
 * once: deliveries are claimed with SKIP LOCKED, a subscription's period-end work commits once
 * (the others find it changed and retry later), and an intent is taken over by one reconciler at
 * a time (its lease). Returns the stop function.
 */
export function startBackgroundWork(deps: Deps): () => Promise<void> {
  const stopDeliveries = startDeliveryWorker(deps);
  const stopScheduler = startSubscriptionScheduler(deps, SCHEDULER_INTERVAL_MS);
  const stopReconciler = startReconciler(deps, deps.config.reconcilerIntervalMs);
  const stopExpiry = startCreditExpiry(deps, SCHEDULER_INTERVAL_MS);
  return async () => {
    stopExpiry();
    stopScheduler();
    stopReconciler();
    await stopDeliveries();
  };
}
