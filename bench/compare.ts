// `npm run bench -- --vs=<ref> [--rounds=N] [--only=orders,cart,get]`: the three hot paths of
// this tree against another commit's, in alternating rounds (current, baseline, current,
// baseline, ...). Each side runs its own bench/server.ts from its own tree (the baseline's is a
// worktree under /tmp, see baseline-tree.ts) on its own fresh database; both servers are started
// once and kept up, and only the side being measured gets load. Prints, per scenario, each
// round's req/s and p50/p99 of both sides, the medians, and current/baseline per round pair.
import os from 'node:os';
import { baselineTree } from './baseline-tree.js';
import {
  type BenchServer,
  type Fixture,
  type LoadResult,
  runFlows,
  runLoad,
  startBenchServer,
} from './harness.js';
import {
  CART_FLOW,
  cartFlow,
  GET_ORDER,
  getOrderRequest,
  type LoadOptions,
  POST_ORDER,
  postOrderRequest,
} from './scenarios/api.js';

/** The scenarios by the key `--only=` names them with. */
const SCENARIOS = { orders: POST_ORDER, cart: CART_FLOW, get: GET_ORDER } as const;
type ScenarioKey = keyof typeof SCENARIOS;

export interface CompareOptions extends LoadOptions {
  ref: string;
  rounds: number;
  /** Keys of SCENARIOS; all when empty. */
  only: string[];
  redisUrl: string;
  /** A new empty database of this name; its URL. */
  freshDatabase(name: string): Promise<string>;
}

interface Side {
  label: 'current' | 'baseline';
  server: BenchServer;
  next: () => Fixture;
}

/** One measurement of a scenario against a side's server, load rotated over its tenants. */
function measure(key: ScenarioKey, side: Side, load: { connections: number; seconds: number }) {
  const { server, next } = side;
  if (key === 'cart') return runFlows(CART_FLOW, server.appUrl, cartFlow(server), load);
  const request = key === 'orders' ? postOrderRequest : getOrderRequest;
  return runLoad(SCENARIOS[key], server.appUrl, () => request(next()), load);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};
const n = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/** The markdown table of one scenario: a row per round, then the medians. */
export function comparisonTable(name: string, current: LoadResult[], baseline: LoadResult[]): string {
  const ratios = current.map((c, k) => c.requestsPerSecond / (baseline[k]?.requestsPerSecond || Number.NaN));
  const cell = (r: LoadResult) => `${n(r.requestsPerSecond)} | ${ms(r.p50Ms)} | ${ms(r.p99Ms)}`;
  const failed = [...current, ...baseline].reduce((sum, r) => sum + r.non2xx + r.errors, 0);
  const medians = (runs: LoadResult[]) =>
    `**${n(median(runs.map((r) => r.requestsPerSecond)))}** | ${ms(median(runs.map((r) => r.p50Ms)))} | ${ms(median(runs.map((r) => r.p99Ms)))}`;
  return [
    `#### ${name}${failed ? ` (**${failed} failed requests**)` : ''}`,
    '',
    '| round | current req/s | p50 ms | p99 ms | baseline req/s | p50 ms | p99 ms | current/baseline |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...current.map(
      (c, k) =>
        `| ${k + 1} | ${cell(c)} | ${baseline[k] ? cell(baseline[k]) : ' | | '} | ${((ratios[k] ?? 0) * 100).toFixed(1)}% |`,
    ),
    `| median | ${medians(current)} | ${medians(baseline)} | **${(median(ratios) * 100).toFixed(1)}%** |`,
  ].join('\n');
}

/** Starts one side's bench server on its own fresh database. */
async function startSide(label: Side['label'], opts: CompareOptions, cwd?: string): Promise<Side> {
  console.log(`bench: starting the ${label} server${cwd ? ` from ${cwd}` : ''}`);
  const server = await startBenchServer(
    {
      DATABASE_URL: await opts.freshDatabase(`cak_bench_vs_${label}`),
      REDIS_URL: opts.redisUrl,
      // Only the three hot paths run: the paging, streaming and list tenants are seeded small.
      BENCH_PAGING_ORDERS: process.env.BENCH_PAGING_ORDERS ?? '1000',
      BENCH_STREAM_ORDERS: process.env.BENCH_STREAM_ORDERS ?? '1000',
      BENCH_LIST_ORDERS: process.env.BENCH_LIST_ORDERS ?? '20',
    },
    cwd,
  );
  let i = 0;
  return { label, server, next: () => server.fixtures[i++ % server.fixtures.length] as Fixture };
}

/** Runs the comparison and prints its tables; resolves with them (markdown). */
export async function compareWith(opts: CompareOptions): Promise<string> {
  const { sha, dir } = baselineTree(opts.ref);
  const keys = (Object.keys(SCENARIOS) as ScenarioKey[]).filter(
    (k) => opts.only.length === 0 || opts.only.includes(k),
  );
  const loadBefore = os.loadavg()[0] ?? 0;
  const current = await startSide('current', opts);
  let baseline: Side | undefined;
  const tables: string[] = [];
  try {
    baseline = await startSide('baseline', opts, dir);
    const sides = [current, baseline];
    const load = { connections: opts.connections, seconds: opts.seconds };
    for (const key of keys) {
      for (const side of sides) await measure(key, side, { ...load, seconds: opts.warmupSeconds });
      const results: Record<Side['label'], LoadResult[]> = { current: [], baseline: [] };
      for (let round = 1; round <= opts.rounds; round++) {
        for (const side of sides) {
          const result = await measure(key, side, load);
          results[side.label].push(result);
          console.log(
            `  ${key} round ${round} ${side.label}: ${n(result.requestsPerSecond)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`,
          );
        }
      }
      tables.push(comparisonTable(SCENARIOS[key], results.current, results.baseline));
    }
  } finally {
    await Promise.all([current.server.stop(), baseline?.server.stop()]);
  }
  const header = `Current tree vs ${opts.ref} (${sha.slice(0, 12)}): ${opts.rounds} alternating rounds (current, baseline, ...) of ${opts.seconds} s after a ${opts.warmupSeconds} s warm-up per side, ${opts.connections} connections, Redis rate limiter, both servers kept up, each on its own fresh database, ${process.env.BENCH_TENANTS ?? 200} tenants. Ratio = current req/s / baseline req/s of the same round. Load average (1 min) before ${loadBefore.toFixed(2)}, after ${os.loadavg()[0]?.toFixed(2)} on ${os.cpus().length} cores.`;
  const text = [header, ...tables].join('\n\n');
  console.log(`\n${text}\n`);
  if (tables.some((t) => t.includes('failed requests'))) process.exitCode = 1;
  return text;
}
