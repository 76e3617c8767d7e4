import { buildApp } from './app.js';
import { startBackgroundWork } from './background.js';
import { ConfigError, loadConfig } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { createDeps, createLogger, openConfiguredDatabase } from './deps.js';
import { startIdempotencyPurge } from './http/idempotency/purge.js';
import { formatDemoBanner, seedDemoIfEmpty } from './seed/demo.js';

async function main() {
  const config = loadConfig();
  const logger = createLogger(config);
  const database = await openConfiguredDatabase(config, logger);
  await database.migrate();
  const deps = createDeps(config, database, logger);
  await deps.rateLimiter.ready(2_000);

  if (config.seedDemo) {
    const seed = await seedDemoIfEmpty(deps.db, config.appEnv, config.dataDir);
    if (seed) process.stdout.write(`${formatDemoBanner(seed, config.publicBaseUrl)}\n`);
  }

  const app = await buildApp(deps);
  const stopPurge = startIdempotencyPurge(deps);
  await app.listen({ port: config.port, host: config.host });
  const stopBackground = config.webhookWorker ? startBackgroundWork(deps) : async () => {};
  logger.info(
    {
      database: database.kind,
      environment: config.appEnv,
      dataDir: database.kind === 'pglite' ? config.dataDir : undefined,
      webhookWorker: config.webhookWorker,
    },
    'Commerce Agent API ready',
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    try {
      stopPurge();
      await app.close(); // stops accepting, waits for in-flight requests
      await stopBackground(); // finishes and records deliveries in flight
      await Promise.all([database.close(), deps.rateLimiter.close()]);
      logger.info('stopped');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(
      `Failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
  }
  process.exit(1);
});
