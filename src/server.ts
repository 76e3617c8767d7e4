import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics } from 'prom-client';
import { buildApp } from './app.js';
import { startBackgroundWork } from './background.js';
import type { BillingAdapter } from './billing/adapter.js';
import { writeServerFile } from './cli/server-file.js';
import { type Config, ConfigError } from './config.js';
import { loadKeyRing } from './core/key-ring.js';
import { resealSecrets } from './db/sealing.js';
import { createDeps, createLogger, type Deps, openConfiguredDatabase } from './deps.js';
import { tuneHeap } from './heap-tuning.js';
import { startIdempotencyPurge } from './http/idempotency/purge.js';
import { SERVICE_VERSION } from './http/openapi.js';
import { startTracingFromEnv } from './observability/otel-sdk.js';
import { TABLE_LAYOUT } from './schema.js';
import {
  type DemoSeed,
  demoConsoleStart,
  formatDemoBanner,
  formatStartLinks,
  seedDemoIfEmpty,
} from './seed/demo.js';

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
  tuneHeap(config);
  // The port before anything is opened, seeded or printed: a taken PORT is a one-line error.
  await assertPortFree(config.port, config.host);
  // The keys next: without one every instance shares, refuse to start (a one-line ConfigError).
  const keyRing = loadKeyRing(config);
  if (keyRing.created)
    process.stdout.write(
      `Generated the encryption key file ${keyRing.source} (mode 0600). Back it up: the stored secrets cannot be read without it. APP_ENCRYPTION_KEY_FILE keeps it outside the data directory.\n`,
    );
  const logger = createLogger(config);
  // Before the database opens: its connections are traced from the first.
  const tracing = startTracingFromEnv(config.tracesExporter, SERVICE_VERSION);
  const database = await openConfiguredDatabase(config, logger);
  try {
    await database.migrate(TABLE_LAYOUT);
  } catch (err) {
    await database.close().catch(() => {});
    throw databaseError(err, config);
  }
  const deps = createDeps(config, database, logger, {
    keyRing,
    ...(options.wrapBilling ? { wrapBilling: options.wrapBilling } : {}),
  });
  // The process's own figures (CPU, memory, event loop lag) beside the service's.
  if (deps.metrics.enabled) collectDefaultMetrics({ register: deps.metrics.registry });
  await sealSecretsKeptInClear(deps);
  await deps.rateLimiter.ready(2_000);

  const seed: DemoSeed | undefined = config.seedDemo
    ? await seedDemoIfEmpty(deps.db, config.appEnv, config.dataDir)
    : undefined;

  const app = await buildApp(deps);
  const stopPurge = startIdempotencyPurge(deps);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    stopPurge();
    await Promise.all([database.close(), deps.rateLimiter.close(), deps.apiKeys.close?.()]);
    throw listenError(err, config.port, config.host);
  }
  const baseUrl = listeningUrl(app, config);
  // Also for a database seeded before console users existed: its demo tenant gets its owner now.
  const consoleLink = config.seedDemo
    ? await demoConsoleStart(deps.db, config.dataDir, baseUrl, deps.clock)
    : '';
  process.stdout.write(
    `${seed ? formatDemoBanner(seed, baseUrl) : formatStartLinks(baseUrl)}${consoleLink}\n`,
  );
  const removeServerFile = database.kind === 'pglite' ? writeServerFile(config.dataDir, baseUrl) : () => {};
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
      removeServerFile();
      stopPurge();
      await app.close(); // stops accepting, waits for in-flight requests
      await stopBackground(); // finishes and records deliveries in flight
      await Promise.all([database.close(), deps.rateLimiter.close(), deps.apiKeys.close?.()]);
      await tracing?.shutdown(); // sends the spans still buffered
    },
  };
}

/** The base URL, with the port really listened on when PORT=0 let the system pick one. */
function listeningUrl(app: FastifyInstance, config: Config): string {
  const address = app.server.address();
  const url = new URL(config.publicBaseUrl);
  if (url.port !== '0' || typeof address !== 'object' || address === null) return config.publicBaseUrl;
  url.port = String(address.port);
  return url.toString().replace(/\/+$/, '');
}

/** Refuses a taken PORT (or a HOST not of this machine) before the database is opened. PORT 0: any. */
async function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err) => reject(listenError(err, port, host)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** A listen failure as a one-line error naming the variable to change. */
function listenError(err: unknown, port: number, host: string): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE')
    return new ConfigError(
      'PORT',
      `${port} is already in use on ${host}: stop the process listening there, or set PORT to a free port`,
    );
  if (code === 'EACCES')
    return new ConfigError('PORT', `${port} on ${host} needs privileges: set PORT to 1024 or above`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new ConfigError(
      'HOST',
      `${host} is not an address of this machine: set HOST, e.g. 127.0.0.1 or 0.0.0.0`,
    );
  return err;
}

/** PostgreSQL error codes and socket errors that mean DATABASE_URL does not lead to a usable database. */
const CONNECTION_FAILURES: Record<string, string> = {
  '28P01': 'password authentication failed',
  '28000': 'the server refused this user',
  '3D000': 'the database does not exist',
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  ECONNRESET: 'connection reset',
};

/** A failure to reach the configured PostgreSQL as a one-line error naming DATABASE_URL. */
function databaseError(err: unknown, config: Config): unknown {
  if (!config.databaseUrl) return err;
  const e = err as { code?: string; errors?: { code?: string }[]; message?: string };
  const code = e?.code ?? e?.errors?.[0]?.code;
  const timedOut = /timeout exceeded when trying to connect/i.test(e?.message ?? '');
  const why = timedOut ? `no connection within ${config.dbPoolWaitMs} ms` : code && CONNECTION_FAILURES[code];
  if (!why) return err;
  const shown = new URL(config.databaseUrl);
  if (shown.password) shown.password = '***';
  return new ConfigError(
    'DATABASE_URL',
    `(${shown}) does not lead to a usable database: ${why}. Check that PostgreSQL runs there and the URL's host, port, user, password and database`,
  );
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
