// One benchmark run for everything, on PostgreSQL + Redis: every scenario beside its baseline in
// the same run, then bench/RESULTS.md's generated section is rewritten with the numbers, the
// machine, and the targets of earlier issues (met or not).
//
//   npm run bench                      # full run (about 5 minutes), rewrites bench/RESULTS.md
//   npm run bench -- --smoke           # 1 s per scenario: proves it all still runs (CI); writes nothing
//   npm run bench -- --only=api        # or --only=webhooks; prints, does not rewrite RESULTS.md
//   npm run bench -- --only=entitlements   # the check and its baseline only, small order seeds
//   npm run bench -- --only=checkouts  # the cart flow and the ACP and UCP checkouts, in rounds
//   npm run bench -- --only=catalog    # catalog search (100,000 products) and stock-tracked orders
//   npm run bench -- --only=feed       # the ACP product feed of 100,000 products, streamed three times
//   npm run bench -- --only=observability  # POST /orders with metrics and tracing on vs off, in rounds
//   npm run bench -- --vs=befc46f [--rounds=4] [--only=orders,cart,get]
//                                      # POST /orders, the cart flow, GET /orders/{id}: this tree
//                                      # vs another commit's, alternating rounds (bench/compare.ts)
//   npm run bench -- --cpu-profile     # CPU per POST /orders and its top costs (bench/cpu-profile.ts)
//   npm run bench -- --cpu-profile=get # the same for GET /orders/{id}; =cart, =acp, =ucp for a flow
//
// The server of DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) gets four
// databases of the bench's own, cak_bench_api, cak_bench_webhooks, cak_bench_feed and
// cak_bench_observability, dropped and created afresh
// on every run; the database DATABASE_URL names is not touched. On a Citus coordinator
// (DATABASE_URL naming its database with the extension) they are made on every node, so the
// schema is distributed by tenant. REDIS_URL defaults to
// redis://127.0.0.1:6379. BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_TENANTS,
// BENCH_LIST_ORDERS, BENCH_DELIVERIES, BENCH_WEBHOOK_SECONDS, BENCH_FEED_PRODUCTS tune it; BENCH_NODE_ARGS passes
// flags (e.g. --cpu-prof) to the server process.
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createDatabase, dropDatabase } from '../src/db/databases.js';
import { type BenchServer, startBenchServer } from './harness.js';
import {
  apiScenarios,
  BASELINES,
  type Baseline,
  checkoutFlows,
  type Measured,
  roundSeconds,
  type StreamResult,
  streamedWholeList,
} from './scenarios/api.js';
import { catalogScenarios, SEARCH_ROW, TRACKED_ORDER_ROW } from './scenarios/catalog.js';
import { entitlementScenarios } from './scenarios/entitlements.js';
import { type FeedResult, feedExport } from './scenarios/feed.js';
import {
  CONTROL_ROW,
  METRICS_ONLY_ROW,
  metricsOnlyEnv,
  OBSERVED_ROW,
  observabilityScenario,
  observedEnv,
  SAMPLED_ROW,
  sampledEnv,
  startTraceSink,
  unobservedEnv,
} from './scenarios/observability.js';
import { type WebhookResult, webhookDelivery } from './scenarios/webhook-delivery.js';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const vs = args.find((a) => a.startsWith('--vs='))?.slice('--vs='.length);
const rounds = Number(args.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 4);
const write = !smoke && !only;
const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const opts = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 20),
  seconds: smoke ? 1 : Number(process.env.BENCH_SECONDS ?? 10),
  warmupSeconds: smoke ? 1 : 3,
};

/**
 * A new, empty database on DATABASE_URL's server (dropped first if a run left one): every run
 * starts from the same state, and the webhook worker sees only its own scenario's deliveries.
 */
async function freshDatabase(name: string): Promise<string> {
  // On a Citus coordinator, on every node of the cluster, so the schema is distributed.
  await dropDatabase(serverUrl, name);
  return createDatabase(serverUrl, name);
}

async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ v: string }>('select version() as v')).rows[0]?.v ?? 'unknown';
  } finally {
    await client.end();
  }
}

async function redisVersion(url: string): Promise<string> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    return /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  } finally {
    redis.disconnect();
  }
}

const cpuProfile = args.find((a) => a.startsWith('--cpu-profile'));
if (vs || cpuProfile) {
  if (vs) {
    const { compareWith } = await import('./compare.js');
    await compareWith({ ...opts, ref: vs, rounds, only: only?.split(',') ?? [], redisUrl, freshDatabase });
  } else {
    const { profilePostOrders } = await import('./cpu-profile.js');
    type ProfiledScenario = import('./cpu-profile.js').ProfiledScenario;
    const env = {
      BENCH_PAGING_ORDERS: '1000',
      BENCH_STREAM_ORDERS: '1000',
      BENCH_LIST_ORDERS: '20',
      BENCH_SEARCH_PRODUCTS: '1000',
    };
    const server = await startBenchServer({
      DATABASE_URL: await freshDatabase('cak_bench_api'),
      REDIS_URL: redisUrl,
      ...env,
    });
    const scenario = (cpuProfile?.split('=')[1] ?? 'orders') as ProfiledScenario;
    await profilePostOrders(server, opts, undefined, scenario).finally(() => server.stop());
  }
  process.exit();
}

/** Order volumes of a run whose rows do not read them. */
const SMALL_SEEDS = { BENCH_PAGING_ORDERS: '1000', BENCH_STREAM_ORDERS: '1000', BENCH_LIST_ORDERS: '20' };

const started = new Date();
const postgres = await postgresVersion(serverUrl);
const redis = await redisVersion(redisUrl);
const loadBefore = os.loadavg();
console.log(`bench: ${smoke ? 'smoke, ' : ''}PostgreSQL ${new URL(serverUrl).host}, Redis ${redisUrl}`);

let rows: Measured[] = [];
let stream: StreamResult | undefined;
if (!only || only === 'api' || only === 'checkouts') {
  const server = await startBenchServer({
    DATABASE_URL: await freshDatabase('cak_bench_api'),
    REDIS_URL: redisUrl,
    // A sandbox: the UCP checkout's platform profile is served on loopback over plain HTTP.
    APP_ENV: 'sandbox',
    // A smoke proves paging and streaming run; the full run measures the issue's sizes.
    ...(smoke
      ? { BENCH_PAGING_ORDERS: '20000', BENCH_STREAM_ORDERS: '5000', BENCH_SEARCH_PRODUCTS: '5000' }
      : {}),
    // The checkout rows alone need no order volume.
    ...(only === 'checkouts' ? { ...SMALL_SEEDS, BENCH_SEARCH_PRODUCTS: '1000' } : {}),
  });
  try {
    if (only === 'checkouts') rows = await checkoutFlows(server, opts);
    else {
      stream = await streamedWholeList(server);
      rows = await apiScenarios(server, opts);
      rows.push(...(await entitlementScenarios(server, opts)));
      rows.push(...(await catalogScenarios(server, opts)));
    }
  } finally {
    await server.stop();
  }
}
if (only === 'entitlements' || only === 'catalog') {
  // Their rows need no order volume: the paging and streaming tenants are seeded small.
  const server = await startBenchServer({
    DATABASE_URL: await freshDatabase('cak_bench_api'),
    REDIS_URL: redisUrl,
    ...SMALL_SEEDS,
    ...(only === 'entitlements' ? { BENCH_SEARCH_PRODUCTS: '1000' } : {}),
  });
  try {
    rows =
      only === 'catalog' ? await catalogScenarios(server, opts) : await entitlementScenarios(server, opts);
  } finally {
    await server.stop();
  }
}
if (!only || only === 'observability') {
  // Two servers over one database, alike but for metrics and tracing; their rows alternate.
  const sink = await startTraceSink();
  const env = {
    DATABASE_URL: await freshDatabase('cak_bench_observability'),
    REDIS_URL: redisUrl,
    ...SMALL_SEEDS,
    BENCH_SEARCH_PRODUCTS: '1000',
  };
  const sampledSink = await startTraceSink();
  const switchedSink = await startTraceSink();
  const started: BenchServer[] = [];
  const start = async (extra: Record<string, string>) => {
    const server = await startBenchServer({ ...env, ...extra });
    started.push(server);
    return server;
  };
  try {
    const servers = {
      off: await start(unobservedEnv),
      offAgain: await start(unobservedEnv),
      on: await start(observedEnv(sink.url)),
      metricsOnly: await start(metricsOnlyEnv),
      sampled: await start(sampledEnv(sampledSink.url)),
      switched: await start(observedEnv(switchedSink.url)),
    };
    rows.push(...(await observabilityScenario(servers, opts)));
    const received = async (of: typeof sink) => {
      const s = await of.received();
      return `${s.requests} OTLP exports, ${(s.bytes / 2 ** 20).toFixed(1)} MB`;
    };
    console.log(
      `observability: every request traced: ${await received(sink)}; 1 in 10: ${await received(sampledSink)}`,
    );
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    await Promise.all([sink.close(), sampledSink.close(), switchedSink.close()]);
  }
}
let feed: FeedResult | undefined;
if (!only || only === 'feed') {
  // Its own database and a server with small fixtures: the catalog is the feed's alone.
  const url = await freshDatabase('cak_bench_feed');
  const server = await startBenchServer({
    DATABASE_URL: url,
    REDIS_URL: redisUrl,
    BENCH_TENANTS: '2',
    ...SMALL_SEEDS,
    BENCH_SEARCH_PRODUCTS: '1000',
  });
  try {
    feed = await feedExport(
      server,
      url,
      Number(process.env.BENCH_FEED_PRODUCTS ?? (smoke ? 5_000 : 100_000)),
    );
    const runs = [feed.first, ...feed.again].map(
      (r) =>
        `${r.lines} lines in ${(r.ms / 1000).toFixed(1)} s, RSS +${(r.growthBytes / 2 ** 20).toFixed(1)} MB`,
    );
    console.log(
      `feed: ${feed.products} products seeded in ${(feed.seedMs / 1000).toFixed(1)} s; ${runs.join('; ')}`,
    );
  } finally {
    await server.stop();
  }
}
const webhooks =
  !only || only === 'webhooks'
    ? await webhookDelivery(await freshDatabase('cak_bench_webhooks'), smoke)
    : undefined;
const loadAfter = os.loadavg();
const minutes = (Date.now() - started.getTime()) / 60_000;

// --- report ------------------------------------------------------------------------------------
const find = (name: string) => rows.find((r) => r.name.startsWith(name));
const ratioOf = (r: Measured) => {
  const base = r.baseline && rows.find((b) => b.name === BASELINES[r.baseline as Baseline]);
  return base ? r.requestsPerSecond / base.requestsPerSecond : undefined;
};
const pct = (x: number | undefined) => (x === undefined ? '' : `${(x * 100).toFixed(1)}%`);
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const n = (x: number) => x.toLocaleString('en-US');

const scenarioTable = [
  '| scenario | req/s | p50 ms | p99 ms | peak server RSS MB | compared with | ratio | non-2xx | errors | server CPU µs per request |',
  '|---|---:|---:|---:|---:|---|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.name}${r.flowsPerSecond === undefined ? '' : ` (${n(r.flowsPerSecond)} flows/s)`}${r.rounds ? ` (median of ${r.rounds} alternating rounds)` : ''} | ${n(r.requestsPerSecond)} | ${r.p50Ms} | ${r.p99Ms} | ${mb(r.rssBytes)} | ${r.baseline ? BASELINES[r.baseline].replace('baseline: ', '') : ''} | ${pct(ratioOf(r))} | ${r.non2xx} | ${r.errors} | ${r.cpuMicrosPerRequest ?? ''} |`,
  ),
].join('\n');

const webhookTable = (w: WebhookResult) =>
  [
    '| measure | value |',
    '|---|---:|',
    `| backlog of ${n(w.backlog)} deliveries: received, per second | ${n(w.receivedPerSecond)} |`,
    `| backlog: received AND recorded \`succeeded\`, per second | ${n(w.recordedPerSecond)} |`,
    `| steady load: events/s achieved (asked ${w.rate}) | ${w.achievedRate} |`,
    `| commit-to-receipt p50 ms | ${w.p50Ms.toFixed(1)} |`,
    `| commit-to-receipt p99 ms | ${w.p99Ms.toFixed(1)} |`,
    `| commit-to-receipt max ms | ${w.maxMs.toFixed(1)} |`,
    `| RSS of the API + worker process at the end, MB | ${mb(w.rssBytes)} |`,
  ].join('\n');

interface Target {
  issue: string;
  target: string;
  measured: string;
  met: boolean | undefined;
}
const targets: Target[] = [];
const SINGLE = ', single instance (in-process rate limiter)';
/** The Redis-limiter row and the single-instance row of a scenario, labelled. */
const configurations = (name: string) =>
  [
    [find(`${name}${SINGLE}`), 'single instance, in-process limiter'],
    [rows.find((r) => r.name.startsWith(name) && !r.name.includes(SINGLE)), 'Redis limiter'],
  ].filter((c): c is [Measured, string] => c[0] !== undefined);

for (const [row, label] of configurations('GET /orders/{id}')) {
  const overhead = 1 - (ratioOf(row) ?? 0);
  targets.push({
    issue: 'Cross-cutting guarantees',
    target: 'API overhead on a data read <= 25% of the bare route with the same read',
    measured: `GET /orders/{id}, ${label}: ${pct(overhead)}`,
    met: overhead <= 0.25,
  });
}
const resolve = find('GET /pricing/resolve');
if (resolve) {
  targets.push({
    issue: 'Catalog, pricing engine',
    target: 'GET /pricing/resolve recorded beside the bare-route baseline',
    measured: `${n(resolve.requestsPerSecond)} req/s, ${pct(ratioOf(resolve))} of the bare read`,
    met: true,
  });
}
const check = find('GET /entitlements/check');
if (check) {
  const ratio = ratioOf(check) ?? 0;
  const warm = find(BASELINES['entitlements-read']);
  targets.push({
    issue: 'Entitlements',
    target: 'GET /entitlements/check >= 80% of the bare route with the same read',
    measured: `${n(check.requestsPerSecond)} req/s, p99 ${check.p99Ms} ms: ${pct(ratio)} of the read with nothing remembered (${pct(warm && check.requestsPerSecond / warm.requestsPerSecond)} of the warm reader's)`,
    met: ratio >= 0.8,
  });
}
const cart = find('cart flow');
for (const name of ['ACP checkout', 'UCP checkout']) {
  const row = find(name);
  if (!cart?.flowsPerSecond || !row?.flowsPerSecond) continue;
  const ratio = row.flowsPerSecond / cart.flowsPerSecond;
  targets.push({
    issue: 'Agentic checkout',
    target: `${name} (create, update, complete) >= 80% of the cart flow's throughput, same run`,
    measured: `${n(row.flowsPerSecond)} checkouts/s against ${n(cart.flowsPerSecond)} cart flows/s: ${pct(ratio)}`,
    met: ratio >= 0.8,
  });
}
const search = find(SEARCH_ROW);
if (search) {
  const ratio = ratioOf(search) ?? 0;
  targets.push({
    issue: 'Content and a catalog agents can search',
    target: 'GET /catalog/search (100,000 products) >= 60% of the raw SQL of the same statement',
    measured: `${n(search.requestsPerSecond)} req/s, p99 ${search.p99Ms} ms: ${pct(ratio)} of the raw statement's req/s (its p99: ${find(BASELINES['raw-search'])?.p99Ms} ms)`,
    met: ratio >= 0.6,
  });
}
const trackedOrders = find(TRACKED_ORDER_ROW);
if (trackedOrders) {
  const ratio = ratioOf(trackedOrders) ?? 0;
  targets.push({
    issue: 'Content and a catalog agents can search',
    target: 'POST /orders with stock tracking within 10% of the same order without',
    measured: `${n(trackedOrders.requestsPerSecond)} req/s, p99 ${trackedOrders.p99Ms} ms: ${pct(ratio)} of the untracked order's req/s`,
    met: ratio >= 0.9,
  });
}
const observabilityOff = find(BASELINES['observability-off']);
const cpuOverhead = (row: Measured) =>
  row.cpuMicrosPerRequest !== undefined && observabilityOff?.cpuMicrosPerRequest
    ? row.cpuMicrosPerRequest / observabilityOff.cpuMicrosPerRequest - 1
    : undefined;
const signed = (x: number | undefined) =>
  x === undefined ? 'n/a' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
const within = (x: number | undefined, interval: number | undefined) =>
  x === undefined ? 'n/a' : `${signed(x)} ± ${((interval ?? 0) * 100).toFixed(1)}`;
const control = find(CONTROL_ROW);
/**
 * The profiled reading: what the row's server spends in observability code and the collector
 * beyond what the off server does, as a share of the off server's CPU. It is a floor: what
 * tracing adds to the rest of the request (the context carried through every promise, caches
 * shared with the spans' work) is charged to the code it slows. Two processes' CPU per request
 * counts all of it but differs by several percent between identical ones (the A/A control). The
 * target is judged on the third reading, the same process switched (`inProcess`): all of the
 * cost, none of the difference between processes.
 */
const attributedOverhead = (row: Measured) => {
  const on = row.profiledShares;
  const off = observabilityOff?.profiledShares;
  if (!on || !off) return undefined;
  const extra = on.observability - off.observability + (on.gc - off.gc);
  return extra / (1 - extra);
};
for (const [rowName, how] of [
  [OBSERVED_ROW, 'metrics and every request traced'],
  [SAMPLED_ROW, 'metrics and 1 trace in 10 (parentbased_traceidratio 0.1)'],
  [METRICS_ONLY_ROW, 'metrics alone'],
] as const) {
  const observed = find(rowName);
  if (!observed) continue;
  const ratio = ratioOf(observed) ?? 0;
  const overhead = cpuOverhead(observed);
  const attributed = attributedOverhead(observed);
  const shares = observed.profiledShares;
  targets.push({
    issue: 'Developer and operator experience',
    target: `POST /orders with ${how}: at most 5% more server CPU per request than with metrics and tracing off (judged in one process, switched between rounds)`,
    measured:
      `in one process: ${within(observed.inProcess?.overhead, observed.inProcess?.interval)} (off against off: ${within(observed.inProcess?.control, observed.inProcess?.controlInterval)}); ` +
      `profiled: ${signed(attributed)} (A/A control ${signed(control && attributedOverhead(control))}; ${shares ? `${pct(shares.observability)} of its CPU in observability code, collector ${pct(shares.gc)}` : 'n/a'}; off: ${observabilityOff?.profiledShares ? `${pct(observabilityOff.profiledShares.observability)}, collector ${pct(observabilityOff.profiledShares.gc)}` : 'n/a'}); ` +
      `CPU per request ${observed.cpuMicrosPerRequest ?? 'n/a'} µs against off's ${observabilityOff?.cpuMicrosPerRequest ?? 'n/a'}: ${signed(overhead)}` +
      ` (A/A control ${signed(control && cpuOverhead(control))}); ${n(observed.requestsPerSecond)} req/s, ${pct(ratio)} of off's (control ${pct(control && ratioOf(control))})`,
    met: observed.inProcess === undefined ? undefined : observed.inProcess.overhead <= 0.05,
  });
}
for (const [row, label] of configurations('POST /orders')) {
  const ratio = ratioOf(row) ?? 0;
  targets.push(
    {
      issue: 'Carts and orders',
      target: 'POST /orders >= 50% of the raw 3-INSERT transaction',
      measured: `${label}: ${pct(ratio)}`,
      met: ratio >= 0.5,
    },
    {
      issue: 'Carts and orders',
      target: 'POST /orders p99 < 50 ms at that load',
      measured: `${label}: ${row.p99Ms} ms`,
      met: row.p99Ms < 50,
    },
  );
}
if (webhooks) {
  targets.push(
    {
      issue: 'Webhooks',
      target: '>= 1,000 deliveries/s to a local HTTPS receiver',
      measured: `${n(webhooks.recordedPerSecond)}/s`,
      met: webhooks.recordedPerSecond >= 1000,
    },
    {
      issue: 'Webhooks',
      target: 'commit-to-receipt p50 <= 50 ms at 200 events/s',
      measured: `${webhooks.p50Ms.toFixed(1)} ms`,
      met: webhooks.p50Ms <= 50,
    },
    {
      issue: 'Webhooks',
      target: 'commit-to-receipt p99 <= 250 ms at 200 events/s',
      measured: `${webhooks.p99Ms.toFixed(1)} ms`,
      met: webhooks.p99Ms <= 250,
    },
  );
}
for (const row of rows.filter((r) => r.name.startsWith('GET /orders?limit=100'))) {
  targets.push({
    issue: 'An agent cannot misuse the API',
    target: 'GET /orders?limit=100 p99 < 20 ms at 20 connections, 1,000,000 orders in the tenant',
    measured: `${row.name.replace('GET /orders?limit=100, ', '')}: p99 ${row.p99Ms} ms, ${pct(ratioOf(row))} of the raw page read's req/s (its p99: ${find(BASELINES['bare-page'])?.p99Ms} ms)`,
    met: row.p99Ms < 20,
  });
}
if (stream) {
  targets.push({
    issue: 'An agent cannot misuse the API',
    target: 'whole-list GET /orders of 100,000 orders streams: server memory grows < 50 MB',
    measured: `${n(stream.orders)} orders, ${mb(stream.bytes)} MB in ${(stream.ms / 1000).toFixed(1)} s: +${mb(stream.growthBytes)} MB RSS (from ${mb(stream.rssBeforeBytes)} MB)`,
    met: stream.growthBytes < 50 * 2 ** 20,
  });
}
if (feed) {
  const { first, again } = feed;
  const later = again.reduce((a, b) => (b.growthBytes > a.growthBytes ? b : a));
  const rate = (r: { lines: number; ms: number }) => n(Math.round(r.lines / (r.ms / 1000)));
  const target = `the ACP feed export of ${n(feed.products)} products streams in constant memory: server RSS grows < 50 MB`;
  targets.push(
    {
      issue: 'Content and a catalog agents can search',
      target: `${target} (a fresh server's first export)`,
      measured: `${n(first.lines)} lines, ${mb(first.bytes)} MB in ${(first.ms / 1000).toFixed(1)} s (${rate(first)} products/s): +${mb(first.growthBytes)} MB RSS (from ${mb(first.rssBeforeBytes)} MB)`,
      met: first.growthBytes < 50 * 2 ** 20,
    },
    {
      issue: 'Content and a catalog agents can search',
      target: `${target} (each later export)`,
      measured: `two more: ${again.map((r) => `+${mb(r.growthBytes)} MB in ${(r.ms / 1000).toFixed(1)} s`).join(', ')}; all three together +${mb(feed.totalGrowthBytes)} MB`,
      met: later.growthBytes < 50 * 2 ** 20,
    },
  );
}
const targetTable = [
  '| issue | target | measured | met |',
  '|---|---|---|---|',
  ...targets.map((t) => `| ${t.issue} | ${t.target} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`),
].join('\n');

const cpus = os.cpus();
const machine = [
  `- CPU: ${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown'}; memory ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${os.type()} ${os.release()}`,
  `- Node.js ${process.version}; ${postgres.split(' on ')[0]}; Redis ${redis}`,
  `- Load average (1 min) before ${loadBefore[0]?.toFixed(2)}, after ${loadAfter[0]?.toFixed(2)}; the server, PostgreSQL, Redis and the load generator share these cores`,
].join('\n');

const section = `<!-- bench:start: generated by \`npm run bench\` (bench/run.ts); rewritten on every full run -->
## Last full run: ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC (${minutes.toFixed(1)} min)

\`\`\`sh
npm run bench    # PostgreSQL at ${new URL(serverUrl).host} (databases cak_bench_api, cak_bench_webhooks), REDIS_URL=${redisUrl}
\`\`\`

${machine}

Each HTTP row: ${opts.connections} connections (10 for the 1,000-order list), ${opts.seconds} s after a ${opts.warmupSeconds} s warm-up, load rotated over ${n(Number(process.env.BENCH_TENANTS ?? 200))} tenants with one \`unlimited\` key each, Redis rate limiter. Ratio = req/s over the req/s of the row it is compared with, from this run. The rows with targets and their baselines run in alternating rounds of ${roundSeconds(opts)} s and report the median round.

### Targets of earlier issues

${targetTable}

### Scenarios

${scenarioTable}

${webhooks ? `### Webhook delivery (worker in the API process, concurrency ${webhooks.concurrency}, HTTPS receiver in its own process)\n\n${webhookTable(webhooks)}` : ''}
<!-- bench:end -->`;

console.log(`\n${section}\n`);
if (write) {
  const path = new URL('./RESULTS.md', import.meta.url);
  const current = readFileSync(path, 'utf8');
  const start = current.indexOf('<!-- bench:start');
  const end = current.indexOf('<!-- bench:end -->');
  const next =
    start >= 0 && end > start
      ? current.slice(0, start) + section + current.slice(end + '<!-- bench:end -->'.length)
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(path, next);
  console.log('bench/RESULTS.md rewritten');
}
const failed = rows.some((r) => r.errors > 0 || r.non2xx > 0);
if (failed) {
  console.error('bench: some requests failed');
  process.exitCode = 1;
}
