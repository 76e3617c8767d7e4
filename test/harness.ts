import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { type App, type BuildOptions, buildApp } from '../src/app.js';
import type { BillingAdapter } from '../src/billing/adapter.js';
import type { Clock } from '../src/clock.js';
import { type Config, loadConfig } from '../src/config.js';
import type { RateTier } from '../src/core/context.js';
import type { Scope } from '../src/core/scopes.js';
import { type Database, openPglite, openPostgres } from '../src/db/client.js';
import { createDatabase, dropDatabase } from '../src/db/databases.js';
import { createDeps, type Deps } from '../src/deps.js';
import type { RateLimiter } from '../src/http/rate-limit/limiter.js';
import { MemoryRateLimiter } from '../src/http/rate-limit/memory-limiter.js';
import { RedisRateLimiter } from '../src/http/rate-limit/redis-limiter.js';
import { issueApiKey } from '../src/modules/api-keys/index.js';
import { createTenant } from '../src/modules/tenants/index.js';
import { TABLE_LAYOUT } from '../src/schema.js';

/** Real PostgreSQL when DATABASE_URL is set (CI's second pass), in-memory PGlite otherwise. */
export const usingPostgres = Boolean(process.env.DATABASE_URL);

let shared: Promise<Database> | undefined;

/** One migrated database per test file (PGlite takes seconds to start). */
export function testDatabase(): Promise<Database> {
  shared ??= (async () => {
    const url = process.env.DATABASE_URL;
    const database = url ? openPostgres({ url, poolSize: 5 }) : await openPglite(undefined);
    await database.migrate(TABLE_LAYOUT);
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
  // On a Citus coordinator the scratch database gets every node and the extension too.
  const url = await createDatabase(base, name, 4);
  const database = openPostgres({ url, poolSize: 3 });
  await database.migrate(TABLE_LAYOUT);
  return {
    url,
    database,
    async drop() {
      await database.close();
      await dropDatabase(base, name);
    },
  };
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
