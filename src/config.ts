import path from 'node:path';

export type AppEnv = 'production' | 'sandbox';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL connection string; absent means the embedded PGlite database in `dataDir`. */
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** PostgreSQL connections per process. */
  dbPoolSize: number;
  /** How long a request waits for a free connection before 503 `overloaded`. */
  dbPoolWaitMs: number;
  dataDir: string;
  appEnv: AppEnv;
  logLevel: LogLevel;
  /** Absolute base URL clients reach this service at; used in the OpenAPI `servers` list. */
  publicBaseUrl: string;
  /** Create the demo tenant and keys on an empty database (default: only in embedded mode). */
  seedDemo: boolean;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** How long a resolved API key is trusted from the in-process cache (revocation delay). */
  apiKeyCacheTtlMs: number;
  /**
   * Whether to trust X-Forwarded-For for the client IP (per-IP rate limits): `false`, `true`, or a
   * number of proxy hops.
   */
  trustProxy: boolean | number;
  /** Grace period for in-flight requests on SIGTERM/SIGINT before the process exits anyway. */
  shutdownTimeoutMs: number;
  /**
   * The keys encrypting secrets at rest (src/core/key-ring.ts): `id:hex` entries, comma-separated,
   * the first sealing. Parsed and checked by `loadKeyRing`.
   */
  encryptionKeys: string | undefined;
  /**
   * A file holding the same entries, one per line. Embedded mode generates it (mode 0600) when
   * absent; default `<dataDir>/encryption.keys`.
   */
  encryptionKeyFile: string | undefined;
  /**
   * The single key (64 hex characters) of earlier releases, kept as the ring's `legacy` key so
   * what it sealed still opens. Deprecated: use APP_ENCRYPTION_KEYS.
   */
  webhookSecretKey: string | undefined;
  /** Accept webhook targets resolving to loopback/private/reserved addresses (development, tests). */
  webhookAllowPrivateTargets: boolean;
  /**
   * Run the webhook delivery worker inside the server process (default). With PostgreSQL it can be
   * turned off here and run apart (`npm run worker`); with PGlite it must stay in-process.
   */
  webhookWorker: boolean;
  /** Deliveries one worker sends at once. */
  webhookConcurrency: number;
  /** Of those, the most one tenant sends at once (its fair share; a hanging receiver holds no more). */
  webhookTenantConcurrency: number;
  /** The most one receiver (webhook URL) is sent at once. */
  webhookReceiverConcurrency: number;
  /** Timeouts in a row after which a receiver is backed off (its deliveries wait). */
  webhookReceiverBackoffAfter: number;
  /** The first back-off of a receiver that keeps timing out; doubles with each further timeout, at most 10 minutes. */
  webhookReceiverBackoffMs: number;
  /** How often an idle worker looks for due deliveries (retries, missed signals). */
  webhookPollIntervalMs: number;
  /** PEM file of extra certificate authorities trusted for webhook targets (private PKI, tests). */
  webhookCaFile: string | undefined;
  /**
   * How long an operation owns its billing intent: a crashed or timed-out operation's intent is
   * taken up by a retry or the reconciler once this has passed (src/unit-of-work/intents.ts).
   */
  intentLeaseMs: number;
  /** How often the reconciler looks for intents left pending past their lease. */
  reconcilerIntervalMs: number;
  /**
   * The operator's bearer token for GET /metrics (every tenant's figures, so no tenant key reads
   * them). Unset: metrics are off, nothing is recorded and /metrics answers 404.
   */
  metricsToken: string | undefined;
  /** The built web console served at /console/ (CONSOLE_DIR; default: dist/console/ of this checkout). */
  consoleDir: string | undefined;
  /**
   * Where trace spans go (OpenTelemetry): `none` (default) unless OTEL_TRACES_EXPORTER says `otlp`
   * or `console`, or an OTLP endpoint is set; OTLP over HTTP as protobuf (the specification's
   * default) or JSON, as OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL says (src/observability/otel-sdk.ts
   * reads the rest).
   */
  tracesExporter: TracesExporter;
  /**
   * How far V8 lets the old generation grow past the live heap before its next full collection, in
   * percent (`--heap-growing-percent`); 0 leaves V8's own factor (up to 4x the live heap). See
   * src/heap-tuning.ts.
   */
  heapGrowingPercent: number;
}

export type TracesExporter = 'none' | 'otlp-protobuf' | 'otlp-json' | 'console';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function intVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function urlVar(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a valid URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use one of ${protocols.join(', ')} (got ${parsed.protocol})`);
  }
  return raw;
}

function boolVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be "true" or "false", got "${raw}"`);
}

function enumVar<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function hexKeyVar(env: Env, name: string, bytes: number): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(raw)) {
    throw new ConfigError(name, `must be ${bytes * 2} hexadecimal characters (${bytes} bytes)`);
  }
  return raw.toLowerCase();
}

function metricsTokenVar(env: Env): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (!/^[\x21-\x7e]{32,256}$/.test(raw))
    throw new ConfigError('METRICS_TOKEN', 'must be 32 to 256 printable characters without spaces');
  return raw;
}

/**
 * OpenTelemetry's own variables: OTEL_SDK_DISABLED turns tracing off; OTEL_TRACES_EXPORTER picks
 * the exporter; without it, an OTLP endpoint (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT) turns OTLP on.
 * Off otherwise: a deployment that set nothing sends nothing anywhere.
 */
function tracesExporterVar(env: Env): TracesExporter {
  if (boolVar(env, 'OTEL_SDK_DISABLED', false)) return 'none';
  const named = enumVar(env, 'OTEL_TRACES_EXPORTER', ['none', 'otlp', 'console'] as const, 'none');
  const endpoint =
    urlVar(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', ['http:', 'https:']) ??
    urlVar(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']);
  const exporter = env.OTEL_TRACES_EXPORTER ? named : endpoint ? 'otlp' : 'none';
  if (exporter !== 'otlp') return exporter;
  const name = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[name] || 'http/protobuf';
  if (protocol === 'http/protobuf') return 'otlp-protobuf';
  if (protocol === 'http/json') return 'otlp-json';
  throw new ConfigError(
    name,
    `must be "http/protobuf" (the default) or "http/json", OTLP over HTTP (this service ships no gRPC exporter), got "${protocol}"`,
  );
}

/** A listen address as it appears in a URL: wildcards become localhost, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** Reads and validates the environment once; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = intVar(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const databaseUrl = urlVar(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = urlVar(env, 'REDIS_URL', ['redis:', 'rediss:']);
  // The embedded database is for trying the service: sandbox. A PostgreSQL deployment is production
  // unless it says otherwise.
  const appEnv = enumVar<AppEnv>(
    env,
    'APP_ENV',
    ['production', 'sandbox'],
    databaseUrl ? 'production' : 'sandbox',
  );
  const logLevel = enumVar<LogLevel>(env, 'LOG_LEVEL', LOG_LEVELS, 'info');
  const publicBaseUrl = (
    urlVar(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${urlHost(host)}:${port}`
  ).replace(/\/+$/, '');
  return {
    port,
    host,
    databaseUrl,
    redisUrl,
    dbPoolSize: intVar(env, 'DB_POOL_SIZE', 10, 1, 1_000),
    dbPoolWaitMs: intVar(env, 'DB_POOL_WAIT_MS', 5_000, 10, 120_000),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    appEnv,
    logLevel,
    publicBaseUrl,
    seedDemo: boolVar(env, 'SEED_DEMO', databaseUrl === undefined),
    bodyLimitBytes: intVar(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 100 * 1_048_576),
    apiKeyCacheTtlMs: intVar(env, 'API_KEY_CACHE_TTL_MS', 5_000, 0, 300_000),
    shutdownTimeoutMs: intVar(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    trustProxy: /^\d+$/.test(env.TRUST_PROXY ?? '')
      ? Number(env.TRUST_PROXY)
      : boolVar(env, 'TRUST_PROXY', false),
    encryptionKeys: env.APP_ENCRYPTION_KEYS || undefined,
    encryptionKeyFile: env.APP_ENCRYPTION_KEY_FILE ? path.resolve(env.APP_ENCRYPTION_KEY_FILE) : undefined,
    webhookSecretKey: hexKeyVar(env, 'WEBHOOK_SECRET_KEY', 32),
    webhookAllowPrivateTargets: boolVar(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    webhookWorker: boolVar(env, 'WEBHOOK_WORKER', true),
    webhookConcurrency: intVar(env, 'WEBHOOK_CONCURRENCY', 64, 1, 1000),
    webhookTenantConcurrency: intVar(env, 'WEBHOOK_TENANT_CONCURRENCY', 32, 1, 1000),
    webhookReceiverConcurrency: intVar(env, 'WEBHOOK_RECEIVER_CONCURRENCY', 16, 1, 1000),
    webhookReceiverBackoffAfter: intVar(env, 'WEBHOOK_RECEIVER_BACKOFF_AFTER', 3, 1, 100),
    webhookReceiverBackoffMs: intVar(env, 'WEBHOOK_RECEIVER_BACKOFF_MS', 30_000, 100, 3_600_000),
    webhookPollIntervalMs: intVar(env, 'WEBHOOK_POLL_INTERVAL_MS', 1_000, 10, 60_000),
    webhookCaFile: env.WEBHOOK_CA_FILE ? path.resolve(env.WEBHOOK_CA_FILE) : undefined,
    intentLeaseMs: intVar(env, 'INTENT_LEASE_MS', 30_000, 100, 3_600_000),
    reconcilerIntervalMs: intVar(env, 'RECONCILER_INTERVAL_MS', 15_000, 100, 3_600_000),
    metricsToken: metricsTokenVar(env),
    consoleDir: env.CONSOLE_DIR ? path.resolve(env.CONSOLE_DIR) : undefined,
    tracesExporter: tracesExporterVar(env),
    heapGrowingPercent: intVar(env, 'HEAP_GROWING_PERCENT', 20, 0, 300),
  };
}
