import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

export interface Fixture {
  key: string;
  tenantId: string;
  keyId: string;
  productId: string;
  oneTimeProductId: string;
}

export interface BenchServer {
  appUrl: string;
  bareUrl: string;
  database: string;
  rateLimiter: string;
  fixtures: Fixture[];
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

/** Starts bench/server.ts in a child process and waits for its fixtures line. */
export async function startBenchServer(env: Record<string, string | undefined> = {}): Promise<BenchServer> {
  const [appPort, barePort] = [await freePort(), await freePort()];
  // BENCH_NODE_ARGS: extra Node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bench/server.ts'], {
    env: { ...process.env, ...env, BENCH_APP_PORT: String(appPort), BENCH_BARE_PORT: String(barePort) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = await new Promise<{ database: string; rateLimiter: string; fixtures: Fixture[] }>(
    (resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
      lines.on('line', (line) => {
        if (line.startsWith('{"ready":true')) resolve(JSON.parse(line));
      });
    },
  );
  return {
    appUrl: `http://127.0.0.1:${appPort}`,
    bareUrl: `http://127.0.0.1:${barePort}`,
    ...ready,
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
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function markdownTable(results: LoadResult[]): string {
  const rows = results.map(
    (r) => `| ${r.name} | ${r.requestsPerSecond} | ${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} | ${r.errors} |`,
  );
  return [
    '| route | req/s | p50 ms | p99 ms | non-2xx | errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}
