// The servers a benchmark measures, in one child process so the load generator has its own
// process: the full app (auth + rate limit + envelope + schemas) on BENCH_APP_PORT (rate limiter
// in Redis when REDIS_URL is set, as several instances need), the same app with the in-process
// limiter of a single instance on BENCH_SINGLE_PORT, and a bare
// Fastify with no middleware on BENCH_BARE_PORT holding the baselines:
//   GET  /bare                        no I/O
//   GET  /read/order/:tenantId/:id    the row GET /orders/{id} reads, with raw node-postgres
//   GET  /same-read/order/:tenantId/:id  the same read through the API's own data access (getOrder)
//   GET  /same-read/entitlements/:tenantId/:accountId  an account's entitlements, through the
//                                     reader GET /entitlements/check uses (warm: one read)
//   GET  /cold-read/entitlements/:tenantId/:accountId  the same through a new reader (three reads)
//   GET  /read/orders/:tenantId       the rows GET /orders reads, with raw node-postgres
//   GET  /raw/search/:tenantId?q=     the statement GET /catalog/search runs, with raw node-postgres
//   POST /raw-tx                      BEGIN; three INSERTs; COMMIT, with raw node-postgres
//   GET  /rss                         this process's resident set size (sampled by the runner)
//   GET  /cpu                         this process's CPU time so far (process.cpuUsage)
//   POST /profile/start, /profile/stop  a V8 CPU profile of this process between the two, with
//                                     its CPU time (process.cpuUsage) (`--cpu-profile`)
//   POST /observability/:mode         metrics and tracing switched in this process: `off`,
//                                     `metrics`, `traced` (metrics, every request traced to the
//                                     OTLP endpoint of its environment) or `sampled` (1 in 10)
// PostgreSQL only (DATABASE_URL); Redis for the rate limiter when REDIS_URL is set. Prints one
// JSON line with the fixtures when ready.
import { randomBytes, randomUUID } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { desc, eq, sql } from 'drizzle-orm';
import Fastify from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { encodeCursor } from '../src/core/paging.js';
import { openPostgres } from '../src/db/client.js';
import { createDeps } from '../src/deps.js';
import { tuneHeap } from '../src/heap-tuning.js';
import { SERVICE_VERSION } from '../src/http/openapi.js';
import { MemoryRateLimiter } from '../src/http/rate-limit/memory-limiter.js';
import { RedisRateLimiter } from '../src/http/rate-limit/redis-limiter.js';
import { issueApiKey } from '../src/modules/api-keys/index.js';
import { productCrud } from '../src/modules/catalog/index.js';
import { getOrder } from '../src/modules/orders/service.js';
import { orders } from '../src/modules/orders/tables.js';
import { EntitlementReader } from '../src/modules/subscriptions/index.js';
import { createTenant } from '../src/modules/tenants/index.js';
import { insertWebhook } from '../src/modules/webhooks/index.js';
import { startTracingFromEnv } from '../src/observability/otel-sdk.js';
import { TABLE_LAYOUT } from '../src/schema.js';
import { catalogFixtures, rawSearchRoute } from './catalog-seed.js';
import type { Fixture } from './harness.js';

/** A plan with a per-unit and a graduated charge: resolve runs the whole engine. */
const benchProduct = {
  name: 'Bench plan',
  type: 'subscription' as const,
  billingInterval: 'month' as const,
  currency: 'USD',
  entitlements: { seats: 10, sso: true },
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

/** An add-on to the plan: the account's entitlements merge two products. */
const benchAddOn = {
  name: 'Bench extra seats',
  type: 'add_on' as const,
  currency: 'USD',
  entitlements: { seats: 5, api_calls: null },
  charges: [
    { name: 'Seats', chargeModel: 'per_unit' as const, tiers: [{ upTo: null, unitPriceCents: 300 }] },
  ],
};

const url = process.env.DATABASE_URL;
if (!url) throw new Error('bench/server.ts needs DATABASE_URL (PostgreSQL)');
const TENANTS = Number(process.env.BENCH_TENANTS ?? 200);
const LIST_ORDERS = Number(process.env.BENCH_LIST_ORDERS ?? 1_000);
// Cursor paging (issue 18): a tenant with a million orders, and one with 100,000 for the
// streamed whole list. Written by SQL (the API would take an hour), one order line each.
const PAGING_ORDERS = Number(process.env.BENCH_PAGING_ORDERS ?? 1_000_000);
// Catalog search: a tenant with this many published products (bench/catalog-seed.ts).
const SEARCH_PRODUCTS = Number(process.env.BENCH_SEARCH_PRODUCTS ?? 100_000);
const STREAM_ORDERS = Number(process.env.BENCH_STREAM_ORDERS ?? 100_000);
const logger = pino({ level: 'warn' });
const config = {
  ...loadConfig({
    APP_ENV: 'sandbox',
    LOG_LEVEL: 'warn',
    APP_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('hex')}`,
    // Metrics and tracing as the runner says (the observability row runs a server with, one without).
    METRICS_TOKEN: process.env.METRICS_TOKEN,
    OTEL_TRACES_EXPORTER: process.env.OTEL_TRACES_EXPORTER,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
    // As `npm start` would run it, unless the runner says otherwise.
    HEAP_GROWING_PERCENT: process.env.HEAP_GROWING_PERCENT,
  }),
  redisUrl: process.env.REDIS_URL || undefined,
};
// The heap as a started server tunes it (src/server.ts).
tuneHeap(config);
let tracing = startTracingFromEnv(config.tracesExporter, SERVICE_VERSION);
const database = openPostgres({ url, poolSize: 10, logger });
await database.migrate(TABLE_LAYOUT);
const rateLimiter = config.redisUrl
  ? new RedisRateLimiter(config.redisUrl, logger, `cak:bench:${randomUUID()}:`)
  : new MemoryRateLimiter();
await rateLimiter.ready(2_000);
const deps = createDeps(config, database, logger, { rateLimiter });
const app = await buildApp(deps);
// The same app with the in-process limiter (a single instance needs no Redis), on its own port.
const singleInstanceApp = await buildApp(
  createDeps(config, database, logger, { rateLimiter: new MemoryRateLimiter() }),
);

/** Calls the API in-process (fixtures are made through the API, as a client would). */
async function call(key: string, method: 'POST' | 'GET', path: string, payload?: object) {
  const res = await app.inject({
    method,
    url: `/api/v1${path}`,
    headers: { authorization: `Bearer ${key}` },
    payload,
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

const orderBody = (f: Pick<Fixture, 'productId' | 'oneTimeProductId'>) => ({
  contactId: '01900000-0000-7000-8000-0000000000c1',
  items: [
    { productId: f.productId, quantity: 3 },
    { productId: f.oneTimeProductId, quantity: 12 },
  ],
  customerContext: { segment: 'smb' },
});

async function benchTenant(name: string): Promise<Fixture> {
  const tenant = await createTenant(database.db, name);
  const { apiKey, secret } = await issueApiKey(database.db, tenant.id, {
    name: 'bench',
    scopes: ['admin'],
    rateTier: 'unlimited',
    environment: 'sandbox',
  });
  const [product, oneTime, addOn] = await database.db.transaction(async (tx) => [
    await productCrud.service.create(tx, tenant.id, benchProduct, new Date()),
    await productCrud.service.create(tx, tenant.id, benchOneTime, new Date()),
    await productCrud.service.create(tx, tenant.id, benchAddOn, new Date()),
  ]);
  // One active subscription to order.created, so every order pays for its webhook fan-out (no
  // worker runs here: the deliveries stay queued).
  await database.db.transaction((tx) =>
    insertWebhook(
      tx,
      tenant.id,
      { url: 'https://localhost:9/bench-hooks', events: ['order.created'] },
      deps.keyRing,
      new Date(),
    ),
  );
  const promoCode = 'BENCH10';
  await call(secret, 'POST', '/admin/promotions', {
    name: 'Bench 10%',
    code: promoCode,
    discountType: 'percent',
    percentOff: 10,
  });
  const ids = { productId: product.id, oneTimeProductId: oneTime.id };
  const order = await call(secret, 'POST', '/orders', orderBody(ids));
  const account = await call(secret, 'POST', '/accounts', { name: 'Bench account' });
  const plan = await call(secret, 'POST', '/subscriptions', {
    productId: product.id,
    organizationId: account.id,
  });
  await call(secret, 'POST', '/subscriptions', { productId: addOn.id, parentSubscriptionId: plan.id });
  return {
    key: secret,
    tenantId: tenant.id,
    keyId: apiKey.id,
    ...ids,
    orderId: order.id,
    promoCode,
    accountId: account.id,
  };
}

const fixtures: Fixture[] = [];
for (let i = 0; i < TENANTS; i++) fixtures.push(await benchTenant(`bench tenant ${i}`));
// One tenant holding LIST_ORDERS orders, for GET /orders (all of them, newest first).
const listTenant = await benchTenant('bench list tenant');
for (let i = 1; i < LIST_ORDERS; i += 20) {
  const batch = Math.min(20, LIST_ORDERS - i);
  await Promise.all(
    Array.from({ length: batch }, () => call(listTenant.key, 'POST', '/orders', orderBody(listTenant))),
  );
}
/** `count` orders for the fixture's tenant, one second apart, newest now. */
async function seedOrders(f: Fixture, count: number) {
  const line = [
    {
      productId: f.productId,
      productName: 'Bench',
      quantity: 3,
      priceCents: 1000,
      totalCents: 3000,
      priced: 'engine',
    },
  ];
  await database.db.execute(sql`
    insert into orders (tenant_id, id, status, items, total_cents, currency, customer_context, discount_cents,
      created_at, updated_at)
    select ${f.tenantId}::uuid, gen_random_uuid(), 'pending', ${JSON.stringify(line)}::jsonb, 3000, 'USD',
      '{}'::jsonb, 0, now() - make_interval(secs => ${count} - n), now() - make_interval(secs => ${count} - n)
    from generate_series(1, ${count}) as n`);
  await database.db.execute(sql`analyze orders`);
}
const pagingTenant = await benchTenant('bench paging tenant');
await seedOrders(pagingTenant, PAGING_ORDERS);
const streamTenant = await benchTenant('bench stream tenant');
await seedOrders(streamTenant, STREAM_ORDERS);
// A cursor half way down the million: a deep page costs what the first does (keyset).
const [middle] = await database.db
  .select({ sequence: orders.sequence })
  .from(orders)
  .where(eq(orders.tenantId, pagingTenant.tenantId))
  .orderBy(desc(orders.sequence))
  .offset(Math.floor(PAGING_ORDERS / 2))
  .limit(1);
// More keys of the paging tenant: the first page and the deep page are each over one key's 10,000
// requests a minute at full load.
const pagingKeys = [pagingTenant.key];
for (let i = 0; i < 9; i++) {
  const { secret } = await issueApiKey(database.db, pagingTenant.tenantId, {
    name: `bench paging ${i}`,
    scopes: ['read'],
    rateTier: 'unlimited',
    environment: 'sandbox',
  });
  pagingKeys.push(secret);
}
const paging = {
  tenant: pagingTenant,
  keys: pagingKeys,
  orders: PAGING_ORDERS,
  deepCursor: encodeCursor({ tenantId: pagingTenant.tenantId, list: 'orders', keys: deps.keyRing }, [
    Number(middle?.sequence ?? 0),
  ]),
  streamTenant,
  streamOrders: STREAM_ORDERS,
};

const catalog = await catalogFixtures(database, fixtures, [benchProduct, benchOneTime], SEARCH_PRODUCTS);

await app.listen({ port: Number(process.env.BENCH_APP_PORT), host: '127.0.0.1' });
await singleInstanceApp.listen({ port: Number(process.env.BENCH_SINGLE_PORT), host: '127.0.0.1' });

const bare = Fastify({ logger: false });
const rawPool = new pg.Pool({ connectionString: url, max: 10 });
await rawPool.query(
  'create table if not exists bench_raw (id uuid primary key, tenant_id uuid not null, kind text not null, body jsonb not null)',
);
bare.get('/bare', async () => ({ ok: true }));
bare.get('/rss', async () => ({ rss: process.memoryUsage().rss }));
bare.get('/cpu', async () => process.cpuUsage());
// The profiler samples only between start and stop: the seeding above stays out of the profile.
const profiler = new Session();
let cpuAtStart = process.cpuUsage();
bare.post('/profile/start', async () => {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
  cpuAtStart = process.cpuUsage();
  return { ok: true };
});
bare.post('/profile/stop', async () => {
  const cpu = process.cpuUsage(cpuAtStart);
  const { profile } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  return { cpuMicros: cpu.user + cpu.system, profile };
});
// The observability rows' comparison within one process: the same code, heap and collector
// either way, where two processes differ by several percent. Metrics are fixed for a process's
// life in the product (METRICS_TOKEN); the bench flips the flag its record calls read.
const SAMPLERS = { traced: 'parentbased_always_on', sampled: 'parentbased_traceidratio' } as const;
bare.post<{ Params: { mode: string } }>('/observability/:mode', async (request, reply) => {
  const { mode } = request.params;
  if (mode !== 'off' && mode !== 'metrics' && mode !== 'traced' && mode !== 'sampled')
    return reply.code(400).send({ error: `unknown mode ${mode}` });
  await tracing?.shutdown();
  tracing = undefined;
  (deps.metrics as { enabled: boolean }).enabled = mode !== 'off';
  if (mode === 'traced' || mode === 'sampled') {
    process.env.OTEL_TRACES_SAMPLER = SAMPLERS[mode];
    process.env.OTEL_TRACES_SAMPLER_ARG = '0.1';
    tracing = startTracingFromEnv('otlp-protobuf', SERVICE_VERSION);
  }
  return { mode };
});
bare.get<{ Params: { tenantId: string; id: string } }>('/read/order/:tenantId/:id', async (request) => {
  const { rows } = await rawPool.query('select * from orders where tenant_id = $1 and id = $2', [
    request.params.tenantId,
    request.params.id,
  ]);
  return rows[0] ?? null;
});
bare.get<{ Params: { tenantId: string; id: string } }>('/same-read/order/:tenantId/:id', async (request) => {
  return (await getOrder(database.db, request.params.tenantId, request.params.id)) ?? null;
});
// What GET /entitlements/check reads, through the same reader (one per process, as the app has).
const entitlementReader = new EntitlementReader(deps);
bare.get<{ Params: { tenantId: string; accountId: string } }>(
  '/same-read/entitlements/:tenantId/:accountId',
  async (request) => entitlementReader.read(request.params.tenantId, request.params.accountId),
);
// The same answer with nothing remembered: the account lookup, the subscriptions, the products.
bare.get<{ Params: { tenantId: string; accountId: string } }>(
  '/cold-read/entitlements/:tenantId/:accountId',
  async (request) => new EntitlementReader(deps).read(request.params.tenantId, request.params.accountId),
);
bare.get<{ Params: { tenantId: string } }>('/read/orders/:tenantId', async (request) => {
  const { rows } = await rawPool.query('select * from orders where tenant_id = $1 order by sequence desc', [
    request.params.tenantId,
  ]);
  return rows;
});
bare.get<{ Params: { tenantId: string } }>('/read/orders-page/:tenantId', async (request) => {
  const { rows } = await rawPool.query(
    'select * from orders where tenant_id = $1 order by sequence desc limit 100',
    [request.params.tenantId],
  );
  return rows;
});
// The raw baseline of an order write: one transaction of three INSERTs on the same database,
// with no framework, validation, pricing or outbox around it.
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
rawSearchRoute(bare, rawPool);
await bare.listen({ port: Number(process.env.BENCH_BARE_PORT), host: '127.0.0.1' });

process.stdout.write(
  `${JSON.stringify({ ready: true, rateLimiter: config.redisUrl ? 'redis' : 'memory', fixtures, listTenant, listOrders: LIST_ORDERS, paging, catalog })}\n`,
);
process.on('SIGTERM', async () => {
  await Promise.all([app.close(), singleInstanceApp.close(), bare.close()]);
  await Promise.all([database.close(), rateLimiter.close(), rawPool.end()]);
  process.exit(0);
});
