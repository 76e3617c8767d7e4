import type { Queryable } from '../../../db/client.js';
import { listenForDeliveries } from '../../../events/delivery-listener.js';
import type { ServiceDeps } from '../../../unit-of-work/index.js';
import { getTenant } from '../../tenants/index.js';
import { observedSender } from './observed-sender.js';
import { createSender } from './sender.js';
import { DeliveryWorker, type DeliveryWorkerDeps } from './worker.js';

export { createSender, type Sender } from './sender.js';
export { DeliveryWorker } from './worker.js';

/**
 * The sandbox honours a tenant's `allowLoopbackWebhooks` as it is at each attempt (turned off:
 * refused); production never sends to loopback targets.
 */
export function loopbackSetting(
  config: Pick<ServiceDeps['config'], 'appEnv'>,
  db: Queryable,
): Pick<DeliveryWorkerDeps, 'loopbackAllowed'> {
  if (config.appEnv !== 'sandbox') return {};
  return {
    loopbackAllowed: async (tenantId) => (await getTenant(db, tenantId))?.allowLoopbackWebhooks === true,
  };
}

/** One for claims, one for writing results: each runs one statement at a time. */
const WORKER_CONNECTIONS = 2;

/**
 * Starts a delivery worker for this process: woken by this process's writes, by NOTIFY from
 * other processes on PostgreSQL, and by polling. Returns the stop function (finishes deliveries
 * in flight and records them).
 */
export function startDeliveryWorker(deps: ServiceDeps): () => Promise<void> {
  const { config } = deps;
  // Connections of its own: under a burst of requests its claims do not queue behind them (that
  // queue once held deliveries for seconds), and a backlog of deliveries never starves them.
  const own = deps.database.separatePool?.(WORKER_CONNECTIONS);
  const sender = observedSender(
    createSender({
      allowPrivateTargets: config.webhookAllowPrivateTargets,
      caFile: config.webhookCaFile,
    }),
    deps.metrics,
  );
  const worker = new DeliveryWorker(
    {
      db: own?.db ?? deps.db,
      clock: deps.clock,
      logger: deps.logger,
      keyRing: deps.keyRing,
      sender,
      // ACP orders and the sellers' keys are read on the shared pool: the worker's own connections
      // are for its claims and results.
      reads: deps.db,
      acp: { lookups: deps.lookups, publicBaseUrl: config.publicBaseUrl },
      ...loopbackSetting(config, deps.db),
    },
    {
      concurrency: config.webhookConcurrency,
      pollIntervalMs: config.webhookPollIntervalMs,
      fairShare: {
        tenantConcurrency: config.webhookTenantConcurrency,
        receiverConcurrency: config.webhookReceiverConcurrency,
        backoffAfterTimeouts: config.webhookReceiverBackoffAfter,
        backoffMs: config.webhookReceiverBackoffMs,
      },
    },
  );
  const unsubscribe = deps.deliveries.subscribe((queuedBy) => worker.wake(queuedBy));
  const stopListening = config.databaseUrl
    ? listenForDeliveries(config.databaseUrl, deps.logger, (queuedBy) => worker.wake(queuedBy))
    : async () => {};
  worker.start();
  return async () => {
    unsubscribe();
    await stopListening();
    await worker.stop();
    await Promise.all([sender.close(), own?.close()]);
  };
}
