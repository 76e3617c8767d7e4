import { startBackgroundWork } from './background.js';
import { ConfigError, loadConfig } from './config.js';
import { loadKeyRing } from './core/key-ring.js';
import { createDeps, createLogger, openConfiguredDatabase } from './deps.js';
import { tuneHeap } from './heap-tuning.js';
import { SERVICE_VERSION } from './http/openapi.js';
import { startTracingFromEnv } from './observability/otel-sdk.js';
import { TABLE_LAYOUT } from './schema.js';

/**
 * The background worker on its own (`npm run worker`): webhook delivery and the subscription
 * scheduler, so they scale apart from the API: PostgreSQL only, since an embedded PGlite data directory is open to one process at a time
 * (there the worker runs inside the server). Start as many as needed; they share the queue.
 */
async function main() {
  const config = loadConfig();
  tuneHeap(config);
  if (!config.databaseUrl) {
    throw new ConfigError(
      'DATABASE_URL',
      'is required to run the worker apart (with the embedded database it runs inside `npm start`)',
    );
  }
  const keyRing = loadKeyRing(config);
  const logger = createLogger(config);
  const tracing = startTracingFromEnv(config.tracesExporter, SERVICE_VERSION);
  const database = await openConfiguredDatabase(config, logger);
  await database.migrate(TABLE_LAYOUT);
  const deps = createDeps(config, database, logger, { keyRing });
  const stop = startBackgroundWork(deps);
  logger.info({ concurrency: config.webhookConcurrency }, 'webhook delivery worker ready');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down: finishing deliveries in flight');
    const force = setTimeout(() => process.exit(1), config.shutdownTimeoutMs);
    force.unref();
    await stop();
    await Promise.all([database.close(), deps.rateLimiter.close(), deps.apiKeys.close?.()]);
    await tracing?.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : (err?.stack ?? String(err))}\n`);
  process.exit(1);
});
