// The servers a benchmark measures, in one child process so the load generator has its own core:
//   the full app (auth + rate limit + envelope + schemas) on BENCH_APP_PORT, and a bare Fastify
//   with no middleware on BENCH_BARE_PORT: `/bare` (no I/O) and `/read/:tenantId/:id` (the same
//   database read the measured API route does). Prints one JSON line with the fixtures when ready.
import { randomBytes, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openPglite, openPostgres } from '../src/db/client.js';
import { createDeps } from '../src/deps.js';
import { MemoryRateLimiter } from '../src/http/rate-limit/memory-limiter.js';
import { RedisRateLimiter } from '../src/http/rate-limit/redis-limiter.js';
import { issueApiKey } from '../src/modules/api-keys/index.js';
import { getApiKey } from '../src/modules/api-keys/service.js';
import { productCrud } from '../src/modules/catalog/routes.js';
import { createTenant } from '../src/modules/tenants/index.js';
import { webhookKey } from '../src/modules/webhooks/index.js';
import { createWebhook } from '../src/modules/webhooks/service.js';

/** A plan with a per-unit and a graduated charge: resolve runs the whole engine. */
const benchProduct = {
  name: 'Bench plan',
  type: 'subscription' as const,
  billingInterval: 'month' as const,
  currency: 'USD',
  charges: [
    { name: 'Seats', chargeModel: 'per_unit' as const, tiers: [{ upTo: null, unitPriceCents: 1000 }] },
    {
      name: 'Usage',
      chargeModel: 'tiered' as const,
      tiers: [
        { upTo: 10, unitPriceCents: 100 },
        { upTo: null, unitPriceCents: 50 },
      ],
    },
  ],
};

const benchOneTime = {
  name: 'Bench add-on pack',
  type: 'one_time' as const,
  currency: 'USD',
  charges: [
    {
      name: 'Packs',
      chargeModel: 'volume' as const,
      tiers: [
        { upTo: 10, unitPriceCents: 900 },
        { upTo: null, unitPriceCents: 700 },
      ],
    },
  ],
};

const TENANTS = Number(process.env.BENCH_TENANTS ?? 200);
const logger = pino({ level: 'warn' });
const config = {
  ...loadConfig({
    APP_ENV: 'sandbox',
    LOG_LEVEL: 'warn',
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
  }),
  redisUrl: process.env.REDIS_URL || undefined,
};
const database = process.env.DATABASE_URL
  ? openPostgres({ url: process.env.DATABASE_URL, poolSize: 10, logger })
  : await openPglite(undefined);
await database.migrate();

const fixtures: {
  key: string;
  tenantId: string;
  keyId: string;
  productId: string;
  oneTimeProductId: string;
}[] = [];
for (let i = 0; i < TENANTS; i++) {
  const tenant = await createTenant(database.db, `bench tenant ${i}`);
  const { apiKey, secret } = await issueApiKey(database.db, tenant.id, {
    name: 'bench',
    scopes: ['admin'],
    rateTier: 'unlimited',
    environment: 'sandbox',
  });
  const product = await database.db.transaction((tx) =>
    productCrud.service.create(tx, tenant.id, benchProduct, new Date()),
  );
  const oneTime = await database.db.transaction((tx) =>
    productCrud.service.create(tx, tenant.id, benchOneTime, new Date()),
  );
  // One active subscription to order.created, so every order pays for its webhook fan-out (no
  // worker runs here: the deliveries stay queued).
  await database.db.transaction((tx) =>
    createWebhook(
      tx,
      tenant.id,
      { url: 'https://localhost:9/bench-hooks', events: ['order.created'] },
      webhookKey(config),
      new Date(),
    ),
  );
  fixtures.push({
    key: secret,
    tenantId: tenant.id,
    keyId: apiKey.id,
    productId: product.id,
    oneTimeProductId: oneTime.id,
  });
}

const rateLimiter = config.redisUrl
  ? new RedisRateLimiter(config.redisUrl, logger, `cak:bench:${randomUUID()}:`)
  : new MemoryRateLimiter();
await rateLimiter.ready(2_000);
const app = await buildApp(createDeps(config, database, logger, { rateLimiter }));
await app.listen({ port: Number(process.env.BENCH_APP_PORT), host: '127.0.0.1' });

const bare = Fastify({ logger: false });
bare.get('/bare', async () => ({ ok: true }));
bare.get<{ Params: { tenantId: string; id: string } }>('/read/:tenantId/:id', async (request) => {
  return (await getApiKey(database.db, request.params.tenantId, request.params.id)) ?? null;
});
// The raw baseline of an order write: one transaction of three INSERTs on the same database,
// with no framework, validation, pricing or outbox around it.
if (process.env.DATABASE_URL) {
  const rawPool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  await rawPool.query(
    'create table if not exists bench_raw (id uuid primary key, tenant_id uuid not null, kind text not null, body jsonb not null)',
  );
  bare.post('/raw-tx', async () => {
    const client = await rawPool.connect();
    try {
      await client.query('begin');
      const tenant = randomUUID();
      for (const kind of ['order', 'audit', 'event']) {
        await client.query('insert into bench_raw (id, tenant_id, kind, body) values ($1, $2, $3, $4)', [
          randomUUID(),
          tenant,
          kind,
          { n: 1 },
        ]);
      }
      await client.query('commit');
      return { ok: true };
    } catch (err) {
      await client.query('rollback');
      throw err;
    } finally {
      client.release();
    }
  });
}
await bare.listen({ port: Number(process.env.BENCH_BARE_PORT), host: '127.0.0.1' });

process.stdout.write(
  `${JSON.stringify({ ready: true, database: database.kind, rateLimiter: config.redisUrl ? 'redis' : 'memory', fixtures })}\n`,
);
process.on('SIGTERM', async () => {
  await Promise.all([app.close(), bare.close()]);
  await Promise.all([database.close(), rateLimiter.close()]);
  process.exit(0);
});
