// The HTTP scenarios, each measured against the bench server (bench/server.ts) beside the
// baseline named in its row. API rows use the Redis rate limiter (as several instances do);
// the two hot paths with a target are also measured on a single instance's in-process limiter. Load rotates over every bench tenant and key (one `unlimited` key
// allows 10,000 requests a minute).
import { type BenchServer, type Fixture, type LoadResult, runFlows, runLoad } from '../harness.js';
import { ACP_FLOW, acpFlow, startPlatformProfile, UCP_FLOW, ucpFlow } from './agentic.js';

/** The baseline rows, by the key a scenario row names it with. */
export const BASELINES = {
  bare: 'baseline: bare Fastify, no I/O',
  'bare-read': 'baseline: bare Fastify + raw pg read of one order',
  'same-read': 'baseline: bare Fastify + the same read through our data access (getOrder)',
  'bare-list': "baseline: bare Fastify + raw pg read of the list tenant's orders",
  'bare-page': 'baseline: bare Fastify + raw pg read of 100 orders of the million-order tenant',
  'raw-tx': 'baseline: raw pg transaction, 3 INSERTs',
  'entitlements-cold':
    'baseline: bare Fastify + an account’s entitlements through our data access, nothing remembered (3 reads)',
  'entitlements-read':
    'baseline: bare Fastify + the same entitlements read through the route’s warm EntitlementReader (1 read)',
  'raw-search': 'baseline: bare Fastify + raw pg of the statement GET /catalog/search runs',
  'orders-untracked': 'order create (POST /orders), products without stock tracking',
  'observability-off': 'observability off: POST /orders, metrics and tracing off',
} as const;
export type Baseline = keyof typeof BASELINES;

export interface Measured extends LoadResult {
  /** What the row is compared with (`ratio` = req/s over the baseline's req/s). */
  baseline?: Baseline;
  /** Peak RSS of the server process during the row, in bytes. */
  rssBytes: number;
  flowsPerSecond?: number;
  /** Alternating rounds the row is the median of. */
  rounds?: number;
  /** The server process's CPU time per request (median of the rounds), when the job asked. */
  cpuMicrosPerRequest?: number;
  /**
   * From a CPU profile of the server over one more round: the shares of its busy time in
   * observability code (the innermost package or src/ file on the stack) and in the collector.
   */
  profiledShares?: { observability: number; gc: number };
  /**
   * Observability rows: CPU per request against the same process with metrics and tracing off,
   * the mean of bracketed rounds with the half-width of its 95% interval, and the A/A control's.
   */
  inProcess?: { overhead: number; interval: number; control: number; controlInterval: number };
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  warmupSeconds: number;
}

/** Samples the server's RSS every `everyMs` while `run` goes on; returns its result and the peak. */
export async function withPeakRss<T>(
  server: BenchServer,
  run: () => Promise<T>,
  everyMs = 250,
): Promise<[T, number]> {
  let peak = await server.rss();
  const timer = setInterval(() => {
    server.rss().then(
      (rss) => {
        peak = Math.max(peak, rss);
      },
      () => {},
    );
  }, everyMs);
  try {
    const result = await run();
    return [result, Math.max(peak, await server.rss())];
  } finally {
    clearInterval(timer);
  }
}

const auth = (f: Fixture) => ({ authorization: `Bearer ${f.key}` });

// The three hot paths, shared by apiScenarios and the comparison with another commit
// (bench/compare.ts): GET /orders/{id}, POST /orders, and the cart flow.
export const GET_ORDER = 'GET /orders/{id}';
export const POST_ORDER = 'POST /orders (2 priced lines, 1 webhook subscription)';
export const CART_FLOW = 'cart flow: create, 2 items, promo, checkout (5 requests)';

/** GET /orders/{id} of the fixture's one order. */
export const getOrderRequest = (f: Fixture) => ({ path: `/api/v1/orders/${f.orderId}`, headers: auth(f) });

/** POST /orders with two priced lines (every tenant has a webhook subscription: fan-out runs). */
export const postOrderRequest = (f: Fixture) => ({
  method: 'POST' as const,
  path: '/api/v1/orders',
  headers: auth(f),
  body: orderBody(f),
});

/** The cart flow: create, two items, a promo code, checkout into an order (5 requests). */
export const cartFlow =
  (server: BenchServer): Parameters<typeof runFlows>[2] =>
  async (call, n) => {
    const f = server.fixtures[n % server.fixtures.length] as Fixture;
    const cart = await call('POST', '/carts', f.key, {
      currency: 'USD',
      customerContext: { segment: 'smb' },
    });
    await call('POST', `/carts/${cart.id}/items`, f.key, { productId: f.productId, quantity: 3 });
    await call('POST', `/carts/${cart.id}/items`, f.key, { productId: f.oneTimeProductId, quantity: 12 });
    await call('POST', `/carts/${cart.id}/promo`, f.key, { code: f.promoCode });
    await call('POST', '/orders', f.key, {
      cartId: cart.id,
      contactId: '01900000-0000-7000-8000-0000000000c1',
    });
  };

function orderBody(f: Fixture): string {
  return JSON.stringify({
    contactId: '01900000-0000-7000-8000-0000000000c1',
    items: [
      { productId: f.productId, quantity: 3 },
      { productId: f.oneTimeProductId, quantity: 12 },
    ],
    customerContext: { segment: 'smb' },
  });
}

export interface Job {
  name: string;
  url: string;
  next: Parameters<typeof runLoad>[2];
  baseline?: Baseline;
  connections?: number;
  /**
   * The process serving `url`, when it is not the `server` given to measureJobs: its RSS is
   * sampled, and its CPU time per request measured (a server of its own takes no other load).
   */
  server?: BenchServer;
}

export interface StreamResult {
  orders: number;
  bytes: number;
  ms: number;
  rssBeforeBytes: number;
  /** Peak server RSS during the response over its RSS just before. */
  growthBytes: number;
}

/**
 * The whole-list GET /orders of the tenant with `streamOrders` orders, once, with the server's
 * RSS sampled every 20 ms: the response streams, so the server's memory should not grow with it.
 * Run first, before load has grown the heap (later, free heap would hide the growth).
 */
export async function streamedWholeList(server: BenchServer): Promise<StreamResult> {
  const before = await server.rss();
  const started = performance.now();
  const [res, peak] = await withPeakRss(
    server,
    () =>
      fetch(`${server.appUrl}/api/v1/orders`, { headers: auth(server.paging.streamTenant) }).then(
        async (r) => ({ status: r.status, text: await r.text() }),
      ),
    20,
  );
  const ms = performance.now() - started;
  const orders = (JSON.parse(res.text) as { data: unknown[] }).data.length;
  // The seeded orders and the fixture's own first order.
  if (res.status !== 200 || orders < server.paging.streamOrders)
    throw new Error(`GET /orders streamed ${orders} orders with ${res.status}`);
  return { orders, bytes: res.text.length, ms, rssBeforeBytes: before, growthBytes: peak - before };
}

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The length of one alternating round: half a row's seconds, at least 3. */
export const roundSeconds = (opts: Pick<LoadOptions, 'seconds'>) => Math.max(3, Math.round(opts.seconds / 2));

/**
 * Measures jobs in `rounds` alternating rounds (A B C A B C ...) of half the seconds each and
 * reports each job's median round: a row and its baseline then see the same box, the same
 * table sizes and the same noise, instead of whatever the minute they ran in held.
 */
export async function measureJobs(
  server: BenchServer,
  opts: LoadOptions,
  jobs: Job[],
  rounds = 1,
): Promise<Measured[]> {
  const results = jobs.map(() => [] as (LoadResult & { rssBytes: number; cpuMicros?: number })[]);
  for (const job of jobs) {
    await runLoad('warmup', job.url, job.next, {
      connections: job.connections ?? opts.connections,
      seconds: opts.warmupSeconds,
    });
  }
  for (let round = 0; round < rounds; round++) {
    for (const [k, job] of jobs.entries()) {
      const connections = job.connections ?? opts.connections;
      const seconds = rounds > 1 ? roundSeconds(opts) : opts.seconds;
      const serving = job.server ?? server;
      const cpuBefore = job.server ? await serving.cpuMicros() : 0;
      const [result, rssBytes] = await withPeakRss(serving, () =>
        runLoad(job.name, job.url, job.next, { connections, seconds }),
      );
      const cpuMicros = job.server ? (await serving.cpuMicros()) - cpuBefore : undefined;
      results[k]?.push({ ...result, rssBytes, ...(cpuMicros === undefined ? {} : { cpuMicros }) });
    }
  }
  return jobs.map((job, k) => {
    const runs = results[k] ?? [];
    const cpuPerRequest = runs.flatMap((r) =>
      r.cpuMicros === undefined || r.requests === 0 ? [] : [r.cpuMicros / r.requests],
    );
    return {
      name: job.name,
      requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
      p50Ms: median(runs.map((r) => r.p50Ms)),
      p99Ms: median(runs.map((r) => r.p99Ms)),
      requests: runs.reduce((sum, r) => sum + r.requests, 0),
      non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
      errors: runs.reduce((sum, r) => sum + r.errors, 0),
      rssBytes: Math.max(...runs.map((r) => r.rssBytes)),
      ...(cpuPerRequest.length ? { cpuMicrosPerRequest: Math.round(median(cpuPerRequest)) } : {}),
      ...(job.baseline ? { baseline: job.baseline } : {}),
      ...(rounds > 1 ? { rounds } : {}),
    };
  });
}

/** Every HTTP scenario and its baselines, in one run against one server. */
export async function apiScenarios(server: BenchServer, opts: LoadOptions): Promise<Measured[]> {
  let i = 0;
  const rotate = () => server.fixtures[i++ % server.fixtures.length] as Fixture;
  const list = server.listTenant;
  const load = { connections: opts.connections, seconds: opts.seconds };

  const measure = (jobs: Job[], rounds = 1) => measureJobs(server, opts, jobs, rounds);
  // The rows with targets alternate with their baselines.
  const ROUNDS = opts.seconds >= 3 ? 3 : 1;

  const rows: Measured[] = [];
  rows.push(
    ...(await measure([
      { name: BASELINES.bare, url: server.bareUrl, next: () => ({ path: '/bare' }) },
      {
        name: BASELINES['bare-read'],
        url: server.bareUrl,
        next: () => {
          const f = rotate();
          return { path: `/read/order/${f.tenantId}/${f.orderId}` };
        },
      },
    ])),
  );
  const getOrder = () => getOrderRequest(rotate());
  rows.push(
    ...(await measure(
      [
        {
          name: BASELINES['same-read'],
          url: server.bareUrl,
          next: () => {
            const f = rotate();
            return { path: `/same-read/order/${f.tenantId}/${f.orderId}` };
          },
        },
        { name: GET_ORDER, url: server.appUrl, next: getOrder, baseline: 'same-read' },
        {
          name: 'GET /orders/{id}, single instance (in-process rate limiter)',
          url: server.singleInstanceUrl,
          next: getOrder,
          baseline: 'same-read',
        },
      ],
      ROUNDS,
    )),
  );
  // 1,000 orders per response (about 0.5 MB): fewer connections, or the responses queue.
  const listConnections = Math.min(opts.connections, 10);
  rows.push(
    ...(await measure([
      {
        name: BASELINES['bare-list'],
        url: server.bareUrl,
        next: () => ({ path: `/read/orders/${list.tenantId}` }),
        connections: listConnections,
      },
      {
        name: `GET /orders (${server.listOrders.toLocaleString('en-US')} orders in the tenant)`,
        url: server.appUrl,
        next: () => ({ path: '/api/v1/orders', headers: auth(list) }),
        baseline: 'bare-list',
        connections: listConnections,
      },
      {
        name: 'GET /pricing/resolve',
        url: server.appUrl,
        next: () => {
          const f = rotate();
          return {
            path: `/api/v1/pricing/resolve?productId=${f.productId}&quantity=${1 + (i % 40)}&segment=smb`,
            headers: auth(f),
          };
        },
        baseline: 'bare-read',
      },
    ])),
  );
  // Cursor paging of a tenant with a million orders: the first page and one half way down.
  const paging = server.paging;
  let turn = 0;
  const pagingAuth = () => ({ authorization: `Bearer ${paging.keys[turn++ % paging.keys.length]}` });
  rows.push(
    ...(await measure([
      {
        name: BASELINES['bare-page'],
        url: server.bareUrl,
        next: () => ({ path: `/read/orders-page/${paging.tenant.tenantId}` }),
      },
      {
        name: `GET /orders?limit=100, first page (${paging.orders.toLocaleString('en-US')} orders in the tenant)`,
        url: server.appUrl,
        next: () => ({ path: '/api/v1/orders?limit=100', headers: pagingAuth() }),
        baseline: 'bare-page',
      },
      {
        name: 'GET /orders?limit=100, a page half way down (cursor)',
        url: server.appUrl,
        next: () => ({
          path: `/api/v1/orders?limit=100&cursor=${paging.deepCursor}`,
          headers: pagingAuth(),
        }),
        baseline: 'bare-page',
      },
    ])),
  );
  const order = () => postOrderRequest(rotate());
  rows.push(
    ...(await measure(
      [
        {
          name: BASELINES['raw-tx'],
          url: server.bareUrl,
          next: () => ({ method: 'POST', path: '/raw-tx', body: '{}' }),
        },
        {
          name: POST_ORDER,
          url: server.appUrl,
          next: order,
          baseline: 'raw-tx',
        },
        {
          name: 'POST /orders, single instance (in-process rate limiter)',
          url: server.singleInstanceUrl,
          next: order,
          baseline: 'raw-tx',
        },
      ],
      ROUNDS,
    )),
  );

  const flow = async (name: string, run: Parameters<typeof runFlows>[2]): Promise<Measured> => {
    await runFlows('warmup', server.appUrl, run, { ...load, seconds: opts.warmupSeconds });
    const [result, rssBytes] = await withPeakRss(server, () => runFlows(name, server.appUrl, run, load));
    return { ...result, rssBytes, baseline: 'raw-tx' };
  };
  rows.push(...(await checkoutFlows(server, opts)));
  rows.push(
    await flow('payment: create session + complete (2 requests)', async (call, n) => {
      const f = server.fixtures[n % server.fixtures.length] as Fixture;
      const session = await call('POST', '/payments', f.key, {
        accountId: 'acct_bench',
        amountCents: 11_700,
        currency: 'USD',
      });
      await call('POST', `/payments/${session.id}/complete`, f.key);
    }),
  );
  return rows;
}

/**
 * The cart flow and the agentic checkouts beside it, in alternating rounds (their target: each
 * checkout at 80% of the cart flow's flows/s), so each sees the same box and table sizes.
 * `npm run bench -- --only=checkouts` runs these rows alone.
 */
export async function checkoutFlows(server: BenchServer, opts: LoadOptions): Promise<Measured[]> {
  const load = { connections: opts.connections, seconds: opts.seconds };
  /** Flows in alternating rounds, as `measure` does for single requests: each flow's median round. */
  const flowsInRounds = async (
    flows: [string, Parameters<typeof runFlows>[2]][],
    rounds: number,
  ): Promise<Measured[]> => {
    for (const [, run] of flows)
      await runFlows('warmup', server.appUrl, run, { ...load, seconds: opts.warmupSeconds });
    const seconds = rounds > 1 ? roundSeconds(opts) : opts.seconds;
    const results = flows.map(() => [] as (Awaited<ReturnType<typeof runFlows>> & { rssBytes: number })[]);
    for (let round = 0; round < rounds; round++)
      for (const [k, [name, run]] of flows.entries()) {
        const [result, rssBytes] = await withPeakRss(server, () =>
          runFlows(name, server.appUrl, run, { ...load, seconds }),
        );
        results[k]?.push({ ...result, rssBytes });
      }
    return flows.map(([name], k) => {
      const runs = results[k] ?? [];
      const middle = [...runs].sort((a, b) => a.flowsPerSecond - b.flowsPerSecond)[
        Math.floor(runs.length / 2)
      ];
      return {
        ...(middle as (typeof runs)[number]),
        name,
        requests: runs.reduce((sum, r) => sum + r.requests, 0),
        non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
        errors: runs.reduce((sum, r) => sum + r.errors, 0),
        rssBytes: Math.max(...runs.map((r) => r.rssBytes)),
        baseline: 'raw-tx' as const,
        ...(rounds > 1 ? { rounds } : {}),
      };
    });
  };
  const platform = await startPlatformProfile();
  try {
    return await flowsInRounds(
      [
        [CART_FLOW, cartFlow(server)],
        [ACP_FLOW, acpFlow(server)],
        [UCP_FLOW, ucpFlow(server, platform.url)],
      ],
      opts.seconds >= 3 ? 3 : 1,
    );
  } finally {
    await platform.stop();
  }
}
