// What metrics and tracing cost POST /orders, three ways: bench servers over one database side by
// side in alternating rounds (off, off again as a control, every request traced, metrics alone,
// one trace in ten); two profiled rounds of each (the share of its CPU in observability code and
// the collector); and one server switched between the modes in bracketed rounds, the reading the
// target is judged on. Spans go over OTLP/HTTP to a local sink in its own process that answers
// 200 to every export and counts them, so the exporter's work is real and nothing is dropped.
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type CpuProfile, costs, PROFILE_DIR } from '../cpu-profile.js';
import { type BenchServer, type Fixture, runLoad } from '../harness.js';
import {
  BASELINES,
  type Job,
  type LoadOptions,
  type Measured,
  measureJobs,
  postOrderRequest,
  roundSeconds,
} from './api.js';

// Not named `POST /orders...`: the runner finds the order rows of its other targets by that prefix.
export const OBSERVED_ROW =
  'observability on: POST /orders, metrics and every request traced (OTLP/HTTP to a local sink)';

/** The environment of the server with both on; the other gets both off explicitly. */
export const observedEnv = (sinkUrl: string) => ({
  METRICS_TOKEN: `bench-metrics-${'0'.repeat(32)}`,
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${sinkUrl}/v1/traces`,
});
export const unobservedEnv = { METRICS_TOKEN: '', OTEL_TRACES_EXPORTER: 'none' };

// Where the cost lies, and what a deployment that samples pays: metrics alone, and metrics with
// one trace in ten kept (the standard OTEL_TRACES_SAMPLER variables; a caller's sampled
// traceparent is still followed).
export const METRICS_ONLY_ROW = 'observability, metrics only: POST /orders, tracing off';
export const SAMPLED_ROW =
  'observability on, 1 trace in 10: POST /orders, metrics and OTEL_TRACES_SAMPLER=parentbased_traceidratio 0.1';
export const metricsOnlyEnv = {
  METRICS_TOKEN: `bench-metrics-${'0'.repeat(32)}`,
  OTEL_TRACES_EXPORTER: 'none',
};
export const sampledEnv = (sinkUrl: string) => ({
  ...observedEnv(sinkUrl),
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: '0.1',
});

/**
 * A local OTLP/HTTP receiver that accepts every export (bench/trace-sink.ts), in a process of its
 * own: in the load generator's, its answers waited behind the load, so the exporter kept many
 * exports of 512 spans in flight and the traced server's collector ran twice as long.
 */
export async function startTraceSink() {
  const sink: ChildProcess = fork(fileURLToPath(new URL('../trace-sink.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
  });
  const port = await new Promise<number>((resolve) =>
    sink.once('message', (m: { port: number }) => resolve(m.port)),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    received: () =>
      new Promise<{ requests: number; bytes: number }>((resolve) => {
        sink.once('message', (m: { received: { requests: number; bytes: number } }) => resolve(m.received));
        sink.send({ cmd: 'received' });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        sink.once('exit', () => resolve());
        sink.kill('SIGTERM');
      }),
  };
}

// The measure's own resolution: a second server with both off, measured as the observed ones are.
export const CONTROL_ROW =
  'observability off again (A/A control): POST /orders, a second server with both off';

export interface ObservedServers {
  off: BenchServer;
  /** Alike to `off`: what the rounds make of two identical servers. */
  offAgain: BenchServer;
  /** Metrics and every request traced. */
  on: BenchServer;
  metricsOnly: BenchServer;
  sampled: BenchServer;
  /** One process whose metrics and tracing the rounds switch (bench/server.ts). */
  switched: BenchServer;
}

/** The rows, alternating; each observed one names the server with both off as its baseline. */
export async function observabilityScenario(
  servers: ObservedServers,
  opts: LoadOptions,
): Promise<Measured[]> {
  const rotation = (server: BenchServer) => {
    let i = 0;
    return () => postOrderRequest(server.fixtures[i++ % server.fixtures.length] as Fixture);
  };
  // Each server is a process of its own taking only its row's load: its CPU time per request is
  // the row's cost, less sensitive than req/s to what else runs on the machine.
  const observed = (name: string, server: BenchServer): Job => ({
    name,
    url: server.appUrl,
    next: rotation(server),
    baseline: 'observability-off',
    server,
  });
  const { off, on } = servers;
  const jobs: Job[] = [
    { name: BASELINES['observability-off'], url: off.appUrl, next: rotation(off), server: off },
    observed(CONTROL_ROW, servers.offAgain),
    observed(OBSERVED_ROW, on),
    observed(METRICS_ONLY_ROW, servers.metricsOnly),
    observed(SAMPLED_ROW, servers.sampled),
  ];
  const rows = await measureJobs(on, opts, jobs, opts.seconds >= 3 ? 6 : 1);
  if (opts.seconds < 3) return rows;
  // Two profiled rounds per server, alternating, averaged: the collector's share of one round
  // moves by a point or two from round to round.
  type Shares = NonNullable<Measured['profiledShares']>;
  const profiled: Shares[][] = jobs.map(() => []);
  for (let pass = 0; pass < 2; pass++)
    for (const [k, job] of jobs.entries()) profiled[k]?.push(await profiledShares(job, opts, `${k}-${pass}`));
  for (const [k, shares] of profiled.entries()) {
    const mean = (of: (s: Shares) => number) => shares.reduce((sum, s) => sum + of(s), 0) / shares.length;
    (rows[k] as Measured).profiledShares = {
      observability: mean((s) => s.observability),
      gc: mean((s) => s.gc),
    };
  }
  const inProcess = await switchedRounds(servers.switched, opts);
  for (const [k, mode] of [
    [2, 'traced'],
    [3, 'metrics'],
    [4, 'sampled'],
  ] as const)
    (rows[k] as Measured).inProcess = inProcess(mode);
  return rows;
}

const OBSERVED_MODES = ['traced', 'metrics', 'sampled'] as const;
type Mode = (typeof OBSERVED_MODES)[number];
const TURNS_SWITCHED = 8;

/** The mean of `xs` and the half-width of its 95% interval (normal approximation). */
function meanWithInterval(xs: number[]) {
  const mean = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const variance = xs.reduce((sum, x) => sum + (x - mean) ** 2, 0) / Math.max(1, xs.length - 1);
  return { mean, interval: (1.96 * Math.sqrt(variance)) / Math.sqrt(xs.length) };
}

/**
 * The comparison within one process, bracketed: off, an observed mode, off, the next, off, and
 * so on, eight turns of the three modes (their order rotated each turn), a warm-up second after
 * each switch. Each observed round's CPU per request is taken against the mean of the off rounds
 * either side of it, which cancels the process's and the database's drift over minutes (the off
 * rounds move by a third from first to last in one run); the mean of the eight ratios is kept,
 * with its 95% interval. Each inner off round, read the same way against its neighbours, is the
 * measure's own A/A control. The first round after the seed runs high and is not counted.
 */
async function switchedRounds(server: BenchServer, opts: LoadOptions) {
  let i = 0;
  const next = () => postOrderRequest(server.fixtures[i++ % server.fixtures.length] as Fixture);
  const load = (seconds: number) =>
    runLoad('switched', server.appUrl, next, { connections: opts.connections, seconds });
  const round = async (mode: Mode | 'off') => {
    await fetch(`${server.bareUrl}/observability/${mode}`, { method: 'POST' });
    await load(1);
    const before = await server.cpuMicros();
    const { requests } = await load(roundSeconds(opts));
    return ((await server.cpuMicros()) - before) / requests;
  };
  await round('off');
  const offs = [await round('off')];
  const ratios = new Map<Mode, number[]>(OBSERVED_MODES.map((m) => [m, []]));
  for (let turn = 0; turn < TURNS_SWITCHED; turn++)
    for (let k = 0; k < OBSERVED_MODES.length; k++) {
      const mode = OBSERVED_MODES[(turn + k) % OBSERVED_MODES.length] as Mode;
      const observed = await round(mode);
      offs.push(await round('off'));
      const [before, after] = offs.slice(-2) as [number, number];
      ratios.get(mode)?.push(observed / ((before + after) / 2) - 1);
    }
  const controlRatios = offs
    .slice(1, -1)
    .map((off, k) => off / (((offs[k] as number) + (offs[k + 2] as number)) / 2) - 1);
  const control = meanWithInterval(controlRatios);
  return (mode: Mode) => {
    const observed = meanWithInterval(ratios.get(mode) as number[]);
    return {
      overhead: observed.mean,
      interval: observed.interval,
      control: control.mean,
      controlInterval: control.interval,
    };
  };
}

/**
 * The code that runs only for metrics and tracing: the SDK's packages, prom-client, and our
 * files that make spans and record metrics (src/http/telemetry.ts also logs the request line,
 * which every server does: the off server's share of it is subtracted with the rest).
 */
const OBSERVABILITY_CODE =
  /^(?:@opentelemetry\/.*|prom-client|src\/observability\/.*|src\/db\/query-spans\.ts|src\/http\/telemetry\.ts|src\/billing\/instrumented\.ts|src\/modules\/webhooks\/delivery\/observed-sender\.ts)$/;

/**
 * A second reading of the cost, insensitive to what else loads the machine: the shares of one
 * profiled round that each server spends in observability code and in the collector. Differences
 * in CPU per request between two processes drift with the box's load by several percent (the A/A
 * control shows how much); shares within one process's profile do not.
 */
async function profiledShares(job: Job, opts: LoadOptions, label: string) {
  const server = job.server as BenchServer;
  await fetch(`${server.bareUrl}/profile/start`, { method: 'POST' });
  await runLoad(job.name, job.url, job.next, { connections: opts.connections, seconds: opts.seconds });
  const stopped = await fetch(`${server.bareUrl}/profile/stop`, { method: 'POST' });
  const { profile } = (await stopped.json()) as { profile: CpuProfile };
  // Kept for `npx tsx bench/cpu-profile.ts FILE`: where each server's CPU went.
  mkdirSync(PROFILE_DIR, { recursive: true });
  writeFileSync(`${PROFILE_DIR}/observability-${label}.cpuprofile`, JSON.stringify(profile));
  const { busyUs, owner } = costs(profile);
  let observability = 0;
  for (const [group, us] of owner) if (OBSERVABILITY_CODE.test(group)) observability += us;
  const gc = owner.get('(garbage collector) (no package on the stack)') ?? 0;
  return { observability: observability / busyUs, gc: gc / busyUs };
}
