import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { type App, type BuildOptions, buildApp } from '../src/app.js';
import type { BillingAdapter } from '../src/billing/adapter.js';
import type { Clock } from '../src/clock.js';
import { type Config, loadConfig } from '../src/config.js';
import type { RateTier } from '../src/core/context.js';
import type { Scope } from '../src/core/scopes.js';
import { type Database, openPglite, openPostgres } from '../src/db/client.js';
import { createDeps, type Deps } from '../src/deps.js';
import type { RateLimiter } from '../src/http/rate-limit/limiter.js';
import { MemoryRateLimiter } from '../src/http/rate-limit/memory-limiter.js';
import { RedisRateLimiter } from '../src/http/rate-limit/redis-limiter.js';
import { issueApiKey } from '../src/modules/api-keys/index.js';
import { createTenant } from '../src/modules/tenants/index.js';

/** Real PostgreSQL when DATABASE_URL is set (CI's second pass), in-memory PGlite otherwise. */
export const usingPostgres = Boolean(process.env.DATABASE_URL);

let shared: Promise<Database> | undefined;

/** One migrated database per test file (PGlite takes seconds to start). */
export function testDatabase(): Promise<Database> {
  shared ??= (async () => {
    const url = process.env.DATABASE_URL;
    const database = url ? openPostgres({ url, poolSize: 5 }) : await openPglite(undefined);
    await database.migrate();
    return database;
  })();
  return shared;
}

/**
 * A fresh, migrated PostgreSQL database on DATABASE_URL's server, for tests that start server or
 * worker processes: their background work (delivery worker, subscription scheduler) serves
 * every tenant of the database it opens, so on the shared test database it would act on other
 * test files' data. `drop()` removes it.
 */
export async function createScratchDatabase(): Promise<{
  url: string;
  database: Database;
  drop(): Promise<void>;
}> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('createScratchDatabase needs DATABASE_URL');
  const name = `cak_scratch_${Date.now()}_${randomBytes(4).toString('hex')}`;
  // On a Citus coordinator the new database is a cluster of its own: Citus does not carry
  // CREATE DATABASE to the workers, so it is made on every node and the workers are added.
  const workers = await citusWorkers(base);
  for (const node of [base, ...workers]) await onServer(node, `create database ${name}`);
  const url = withDatabase(base, name);
  if (workers.length > 0) {
    for (const node of [url, ...workers.map((w) => withDatabase(w, name))]) {
      await onServer(node, 'create extension if not exists citus');
    }
    const coordinator = new URL(base);
    const setup = [
      `select citus_set_coordinator_host('${coordinator.hostname}', ${coordinator.port || 5432})`,
    ];
    for (const w of workers.map((w) => new URL(w)))
      setup.push(`select citus_add_node('${w.hostname}', ${w.port})`);
    await onServer(url, ...setup);
  }
  const database = openPostgres({ url, poolSize: 3 });
  await database.migrate();
  return {
    url,
    database,
    async drop() {
      await database.close();
      for (const node of [...workers, base])
        await onServer(node, `drop database if exists ${name} with (force)`);
    },
  };
}

/** Runs statements on one connection to `url`, in order. */
async function onServer(url: string, ...statements: string[]): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (const s of statements) await c.query(s);
  } finally {
    await c.end();
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The workers' URLs (same user, maintenance database) when `url` is a Citus coordinator; else none. */
async function citusWorkers(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows: ext } = await c.query(`select 1 from pg_extension where extname = 'citus'`);
    if (ext.length === 0) return [];
    const { rows } = await c.query<{ nodename: string; nodeport: number }>(
      `select nodename, nodeport from pg_dist_node where groupid <> 0 and noderole = 'primary' order by nodeport`,
    );
    return rows.map((r) => {
      const u = new URL(url);
      u.hostname = r.nodename;
      u.port = String(r.nodeport);
      u.pathname = '/postgres';
      return u.toString();
    });
  } finally {
    await c.end();
  }
}

// One webhook encryption key per test process: tests never write a key file into ./data.
const TEST_ENCRYPTION_KEYS = `test:${randomBytes(32).toString('hex')}`;

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ LOG_LEVEL: 'silent', APP_ENV: 'sandbox', APP_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS }),
    ...overrides,
  };
}

export interface TestApp {
  app: App;
  deps: Deps;
}

export async function startApp(
  options: {
    config?: Partial<Config>;
    clock?: Clock;
    database?: Database;
    rateLimiter?: RateLimiter;
    /** Wraps every billing adapter (e.g. withFaults) for outage tests. */
    wrapBilling?: (adapter: BillingAdapter) => BillingAdapter;
  } & BuildOptions = {},
): Promise<TestApp> {
  const database = options.database ?? (await testDatabase());
  const config = testConfig({ redisUrl: process.env.REDIS_URL || undefined, ...options.config });
  const logger = pino({ level: process.env.TEST_LOG ?? 'silent' });
  // A prefix per app keeps per-IP buckets of concurrent test files apart in a shared Redis.
  const rateLimiter =
    options.rateLimiter ??
    (config.redisUrl
      ? new RedisRateLimiter(config.redisUrl, logger, `cak:test:${randomUUID()}:`)
      : new MemoryRateLimiter());
  await rateLimiter.ready(2_000);
  const deps = createDeps(config, database, logger, {
    rateLimiter,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.wrapBilling ? { wrapBilling: options.wrapBilling } : {}),
  });
  const app = await buildApp(deps, {
    extraRoutes: (app) => {
      app.addHook('onClose', async () => {
        await rateLimiter.close();
        await deps.apiKeys.close?.();
      });
      options.extraRoutes?.(app);
    },
  });
  return { app, deps };
}

export interface TestTenant {
  tenantId: string;
  keys: Record<Scope, string>;
  keyIds: Record<Scope, string>;
}

/** A fresh tenant with one key per scope: tests isolate by tenant instead of wiping tables. */
export async function createTestTenant(
  deps: Deps,
  options: { rateTier?: RateTier; name?: string } = {},
): Promise<TestTenant> {
  const tenant = await createTenant(
    deps.db,
    options.name ?? `test tenant ${Math.random().toString(36).slice(2)}`,
  );
  const keys = {} as Record<Scope, string>;
  const keyIds = {} as Record<Scope, string>;
  for (const scope of ['read', 'commerce', 'admin'] as const) {
    const { apiKey, secret } = await issueApiKey(deps.db, tenant.id, {
      name: `${scope} key`,
      scopes: [scope],
      rateTier: options.rateTier ?? 'unlimited',
      environment: deps.config.appEnv,
    });
    keys[scope] = secret;
    keyIds[scope] = apiKey.id;
  }
  return { tenantId: tenant.id, keys, keyIds };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Asserts the DESIGN.md error body and returns it. */
export function errorBody(response: { json(): unknown }) {
  return response.json() as {
    error: string;
    code: string;
    details?: { field?: string; rule?: string; message: string }[];
    requestId: string;
  };
}
