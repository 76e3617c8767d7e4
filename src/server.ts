import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics } from 'prom-client';
import { buildApp } from './app.js';
import { startBackgroundWork } from './background.js';
import type { BillingAdapter } from './billing/adapter.js';
import type { Config } from './config.js';
import { loadKeyRing } from './core/key-ring.js';
import { resealSecrets } from './db/sealing.js';
import { createDeps, createLogger, type Deps, openConfiguredDatabase } from './deps.js';
import { startIdempotencyPurge } from './http/idempotency/purge.js';
import { SERVICE_VERSION } from './http/openapi.js';
import { startTracingFromEnv } from './observability/otel-sdk.js';
import { TABLE_LAYOUT } from './schema.js';
import { formatDemoBanner, seedDemoIfEmpty } from './seed/demo.js';

export interface RunningServer {
  app: FastifyInstance;
  deps: Deps;
  /** Stops accepting, finishes requests in flight and background work, closes connections. */
  stop(): Promise<void>;
}

/**
 * Opens the database (migrating it), builds the app, listens and starts the background work:
 * everything `npm start` does. `wrapBilling` wraps every billing adapter (the reliability suite's
 * fault-injecting server uses it).
 */
export async function startServer(
  config: Config,
  options: { wrapBilling?: (adapter: BillingAdapter) => BillingAdapter } = {},
): Promise<RunningServer> {
  // The keys first: without one every instance shares, refuse to start (a one-line ConfigError).
  const keyRing = loadKeyRing(config);
  if (keyRing.created)
    process.stdout.write(
      `Generated the encryption key file ${keyRing.source} (mode 0600). Back it up: the stored secrets cannot be read without it. APP_ENCRYPTION_KEY_FILE keeps it outside the data directory.\n`,
    );
  const logger = createLogger(config);
  // Before the database opens: its connections are traced from the first.
  const tracing = startTracingFromEnv(config.tracesExporter, SERVICE_VERSION);
  const database = await openConfiguredDatabase(config, logger);
  await database.migrate(TABLE_LAYOUT);
  const deps = createDeps(config, database, logger, {
    keyRing,
    ...(options.wrapBilling ? { wrapBilling: options.wrapBilling } : {}),
  });
  // The process's own figures (CPU, memory, event loop lag) beside the service's.
  if (deps.metrics.enabled) collectDefaultMetrics({ register: deps.metrics.registry });
  await sealSecretsKeptInClear(deps);
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
      encryptionKeys: keyRing.source,
      metrics: deps.metrics.enabled,
      tracing: config.tracesExporter,
    },
    'Commerce Agent API ready',
  );
  return {
    app,
    deps,
    async stop() {
      stopPurge();
      await app.close(); // stops accepting, waits for in-flight requests
      await stopBackground(); // finishes and records deliveries in flight
      await Promise.all([database.close(), deps.rateLimiter.close(), deps.apiKeys.close?.()]);
      await tracing?.shutdown(); // sends the spans still buffered
    },
  };
}

/** Seals what an earlier release stored in clear (a provider secret, stored responses). */
async function sealSecretsKeptInClear(deps: Deps) {
  const reports = await resealSecrets(deps.db, deps.keyRing, 'clear', TABLE_LAYOUT.sealed);
  const sealed = reports.filter((r) => r.resealed > 0);
  if (sealed.length > 0)
    deps.logger.info(
      { sealed: sealed.map((r) => `${r.table}.${r.column}: ${r.resealed}`) },
      'sealed secrets kept in clear',
    );
}

/** SIGTERM/SIGINT: stop gracefully, or exit after `shutdownTimeoutMs`. */
export function stopOnSignals(server: RunningServer, config: Config) {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const logger = server.deps.logger;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    try {
      await server.stop();
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
