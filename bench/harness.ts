import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import type { CatalogFixtures } from './catalog-seed.js';

/**
 * One bench tenant: an unlimited admin key, two products, a promotion, one order, and an account
 * with a subscription to the plan and an add-on (its entitlements).
 */
export interface Fixture {
  key: string;
  tenantId: string;
  keyId: string;
  productId: string;
  oneTimeProductId: string;
  orderId: string;
  promoCode: string;
  accountId: string;
}

export interface BenchServer {
  /** The app; its rate limiter is in Redis when REDIS_URL is set. */
  appUrl: string;
  /** The same app with the in-process rate limiter of a single instance. */
  singleInstanceUrl: string;
  bareUrl: string;
  rateLimiter: string;
  fixtures: Fixture[];
  /** The tenant holding `listOrders` orders (BENCH_LIST_ORDERS). */
  listTenant: Fixture;
  listOrders: number;
  /** Cursor paging: a tenant with `orders` orders and a cursor half way down; one for streaming. */
  paging: {
    tenant: Fixture;
    /** Keys of the paging tenant, rotated: one key's limit (10,000 a minute) is below a row's load. */
    keys: string[];
    orders: number;
    deepCursor: string;
    streamTenant: Fixture;
    streamOrders: number;
  };
  /** Catalog search's tenant and the stock-tracked order products (bench/catalog-seed.ts). */
  catalog: CatalogFixtures;
  /** The server process's RSS now, in bytes. */
  rss(): Promise<number>;
  /** The server process's CPU time so far (user + system, all threads), in microseconds. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * Starts bench/server.ts in a child process and waits for its fixtures line. `cwd` is the tree
 * whose bench/server.ts (and src/, and tsx) runs: another commit's, for `--vs=<ref>`.
 */
export async function startBenchServer(
  env: Record<string, string | undefined> = {},
  cwd = process.cwd(),
): Promise<BenchServer> {
  const [appPort, singlePort, barePort] = [await freePort(), await freePort(), await freePort()];
  // BENCH_NODE_ARGS: extra Node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bench/server.ts'], {
    env: {
      ...process.env,
      ...env,
      BENCH_APP_PORT: String(appPort),
      BENCH_SINGLE_PORT: String(singlePort),
      BENCH_BARE_PORT: String(barePort),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd,
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = await new Promise<{
    rateLimiter: string;
    fixtures: Fixture[];
    listTenant: Fixture;
    listOrders: number;
    paging: BenchServer['paging'];
    catalog: CatalogFixtures;
  }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    lines.on('line', (line) => {
      if (line.startsWith('{"ready":true')) resolve(JSON.parse(line));
    });
  });
  return {
    appUrl: `http://127.0.0.1:${appPort}`,
    singleInstanceUrl: `http://127.0.0.1:${singlePort}`,
    bareUrl: `http://127.0.0.1:${barePort}`,
    ...ready,
    rss: async () =>
      ((await (await fetch(`http://127.0.0.1:${barePort}/rss`)).json()) as { rss: number }).rss,
    cpuMicros: async () => {
      const used = (await (await fetch(`http://127.0.0.1:${barePort}/cpu`)).json()) as NodeJS.CpuUsage;
      return used.user + used.system;
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses received in the measured seconds. */
  requests: number;
  non2xx: number;
  errors: number;
}

/**
 * Runs a closed-loop load: `connections` concurrent clients for `seconds`, each request built by
 * `next()` (so load can rotate over many keys and tenants).
 */
export async function runLoad(
  name: string,
  baseUrl: string,
  next: () => { path: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
  options: { connections: number; seconds: number },
): Promise<LoadResult> {
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        setupRequest: (request) => {
          const { path, method = 'GET', headers, body } = next();
          return {
            ...request,
            method,
            path,
            headers: {
              ...request.headers,
              ...headers,
              ...(body ? { 'content-type': 'application/json' } : {}),
            },
            ...(body ? { body } : {}),
          };
        },
      },
    ],
  });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Calls the API inside a flow: resolves with the response's `data`, throws on a non-2xx. */
/** How a protocol's request differs from ours: its base path, its headers, a body not in our envelope. */
export interface CallOptions {
  /** Default /api/v1. */
  prefix?: string;
  headers?: Record<string, string>;
  /** The answer is the resource itself (ACP, UCP), not `{ data }`. */
  bare?: boolean;
}

export type FlowCall = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  key: string,
  body?: object,
  options?: CallOptions,
) => Promise<Record<string, unknown>>;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/**
 * Closed-loop load of multi-request flows (each step needs the previous step's answer, which
 * autocannon cannot chain): `connections` workers each run `flow` again and again for `seconds`.
 * Reports requests per second and per-request latency, like runLoad, plus flows per second.
 */
export async function runFlows(
  name: string,
  baseUrl: string,
  flow: (call: FlowCall, i: number) => Promise<void>,
  options: { connections: number; seconds: number },
): Promise<LoadResult & { flowsPerSecond: number }> {
  const pool = new Pool(baseUrl, { connections: options.connections });
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let flows = 0;
  const call: FlowCall = async (method, path, key, body, options = {}) => {
    const started = performance.now();
    const res = await pool.request({
      method,
      path: `${options.prefix ?? '/api/v1'}${path}`,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.body.text();
    latencies.push(performance.now() - started);
    if (res.statusCode >= 300) {
      non2xx++;
      throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
    }
    const parsed = JSON.parse(text) as Record<string, unknown>;
    return options.bare ? parsed : (parsed as { data: Record<string, unknown> }).data;
  };
  const deadline = performance.now() + options.seconds * 1000;
  let next = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      try {
        await flow(call, next++);
        flows++;
      } catch (err) {
        errors++;
        if (errors <= 3) console.error(`${name}: ${(err as Error).message}`);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    name,
    requestsPerSecond: Math.round(latencies.length / elapsed),
    flowsPerSecond: Math.round(flows / elapsed),
    p50Ms: Math.round(percentile(latencies, 50)),
    p99Ms: Math.round(percentile(latencies, 99)),
    requests: latencies.length,
    non2xx,
    errors,
  };
}
