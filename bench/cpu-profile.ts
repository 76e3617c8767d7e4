// Where the server's CPU goes under POST /orders.
//
//   npm run bench -- --cpu-profile     # POST /orders against a fresh bench server: a warm-up, a
//                                      # run measuring the server's CPU (process.cpuUsage) per
//                                      # request, then a run with a V8 CPU profile of the server
//                                      # over its measured seconds only (not the seeding), written
//                                      # to /tmp/cak-prof; prints CPU per request and the top costs
//   npx tsx bench/cpu-profile.ts FILE.cpuprofile [REQUESTS]
//                                      # the same tables for any profile, e.g. one written by
//                                      # BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/cak-prof"
//                                      # (that one includes the server's start and seeding)
//
// Self time: samples whose top frame is the function. Inclusive time: samples with the function
// anywhere on the stack (once per sample, however often it recurs). Groups: the npm package of
// the frame's file, our src/ file, node's internals, or V8's own entries ((garbage collector),
// (program)). Shares are of the busy samples ((idle) left out).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BenchServer, type Fixture, runFlows, runLoad } from './harness.js';
import { ACP_FLOW, acpFlow, startPlatformProfile, UCP_FLOW, ucpFlow } from './scenarios/agentic.js';
import {
  CART_FLOW,
  cartFlow,
  GET_ORDER,
  getOrderRequest,
  type LoadOptions,
  POST_ORDER,
  postOrderRequest,
} from './scenarios/api.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The package, src/ file, or runtime part a frame's script belongs to. */
export function groupOf(url: string, functionName: string): string {
  // V8's own entries, or code without a script: native functions, code made by `new Function`.
  if (!url) return functionName.startsWith('(') ? functionName : '(native or generated code)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [first, second] = url.slice(modules + '/node_modules/'.length).split('/');
    return first?.startsWith('@') ? `${first}/${second}` : (first ?? url);
  }
  // The last src/ or bench/ of the path: the tree itself may sit in a folder named bench.
  const ours = /^.*\/((?:src|bench)\/.*)$/.exec(url);
  return ours?.[1] ?? url;
}

/** Where profiles are written: the `--cpu-profile` runs and the observability rows' rounds. */
export const PROFILE_DIR = '/tmp/cak-prof';

/** Groups that are no package or file of ours: their time belongs to whoever called them. */
const isRuntime = (group: string) => group === 'node internals' || group.startsWith('(');

const functionKey = ({ functionName, url, lineNumber }: ProfileNode['callFrame']) =>
  url
    ? `${functionName || '(anonymous)'} (${groupOf(url, functionName)}${url.includes('/node_modules/') ? `/${path.basename(url)}` : ''}:${lineNumber + 1})`
    : functionName || '(anonymous, no script)';

type Totals = Map<string, number>;
const add = (totals: Totals, key: string, us: number) => totals.set(key, (totals.get(key) ?? 0) + us);

/** Self and inclusive microseconds per function and per group. */
export function costs(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stacks = new Map<number, { functions: Set<string>; groups: Set<string>; owner?: string }>();
  const stackOf = (id: number) => {
    let stack = stacks.get(id);
    if (stack) return stack;
    stack = { functions: new Set(), groups: new Set() };
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame || frame.functionName === '(root)') continue;
      const group = groupOf(frame.url, frame.functionName);
      // Inclusive time of node's internals and natives says little: everything runs under them.
      if (!isRuntime(group)) {
        stack.owner ??= group;
        stack.functions.add(functionKey(frame));
      }
      stack.groups.add(group);
    }
    stacks.set(id, stack);
    return stack;
  };
  const result = {
    busyUs: 0,
    idleUs: 0,
    selfFn: new Map() as Totals,
    selfGroup: new Map() as Totals,
    inclFn: new Map() as Totals,
    inclGroup: new Map() as Totals,
    /** Self time charged to the innermost package or src/ file on the stack (writev: pg's). */
    owner: new Map() as Totals,
  };
  profile.samples.forEach((id, k) => {
    // A sample lasts until the next one.
    const us = profile.timeDeltas[k + 1] ?? 0;
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    if (frame.functionName === '(idle)') {
      result.idleUs += us;
      return;
    }
    result.busyUs += us;
    add(result.selfFn, functionKey(frame), us);
    add(result.selfGroup, groupOf(frame.url, frame.functionName), us);
    const stack = stackOf(id);
    add(
      result.owner,
      stack.owner ?? `${groupOf(frame.url, frame.functionName)} (no package on the stack)`,
      us,
    );
    for (const key of stack.functions) add(result.inclFn, key, us);
    for (const key of stack.groups) add(result.inclGroup, key, us);
  });
  return result;
}

/** A markdown table of the `top` largest entries, in ms and share of the busy time. */
function top(title: string, totals: Totals, busyUs: number, perRequest: number | undefined, count = 15) {
  const rows = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
  return [
    `| ${title} | ms | share${perRequest ? ' | µs per request' : ''} |`,
    `|---|---:|---:|${perRequest ? '---:|' : ''}`,
    ...rows.map(
      ([key, us]) =>
        `| ${key.replaceAll('|', '\\|')} | ${(us / 1000).toFixed(0)} | ${((us / busyUs) * 100).toFixed(1)}% |${perRequest ? ` ${(us / perRequest).toFixed(0)} |` : ''}`,
    ),
  ].join('\n');
}

/** The report of a profile: sampled time, CPU per request when `requests` is known, the tables. */
export function report(profile: CpuProfile, requests?: number, cpuMicros?: number): string {
  const c = costs(profile);
  const wallMs = (profile.endTime - profile.startTime) / 1000;
  const lines = [
    `Profile: ${(wallMs / 1000).toFixed(1)} s, ${(c.busyUs / 1000).toFixed(0)} ms busy samples, ${(c.idleUs / 1000).toFixed(0)} ms idle.`,
  ];
  if (requests) {
    lines.push(
      `${requests.toLocaleString('en-US')} requests: ${(c.busyUs / 1000 / requests).toFixed(2)} ms of sampled main-thread CPU per request` +
        (cpuMicros
          ? `, ${(cpuMicros / 1000 / requests).toFixed(2)} ms of process CPU (process.cpuUsage, all threads) per request.`
          : '.'),
    );
  }
  const per = requests;
  lines.push(
    top('self time charged to the innermost package or src/ file on the stack', c.owner, c.busyUs, per),
    top('self time, by package or src/ file', c.selfGroup, c.busyUs, per),
    top('inclusive time, by package or src/ file', c.inclGroup, c.busyUs, per),
    top('self time, by function', c.selfFn, c.busyUs, per),
    top('inclusive time, by function (packages and src/ only)', c.inclFn, c.busyUs, per),
  );
  return lines.join('\n\n');
}

/**
 * POST /orders (or the scenario named) against `server` (Redis limiter) after a warm-up, with the
 * server profiling itself over the measured seconds only; writes the profile and resolves with
 * the report.
 */
export async function profilePostOrders(
  server: BenchServer,
  opts: LoadOptions,
  dir = PROFILE_DIR,
  scenario: ProfiledScenario = 'orders',
) {
  const platform = scenario === 'ucp' ? await startPlatformProfile() : undefined;
  try {
    return await profile(server, opts, dir, scenario, platform?.url ?? '');
  } finally {
    await platform?.stop();
  }
}

export type ProfiledScenario = 'orders' | 'get' | 'cart' | 'acp' | 'ucp';

const FLOWS = {
  cart: { name: CART_FLOW, flow: (s: BenchServer) => cartFlow(s) },
  acp: { name: ACP_FLOW, flow: (s: BenchServer) => acpFlow(s) },
  ucp: { name: UCP_FLOW, flow: (s: BenchServer, platformUrl: string) => ucpFlow(s, platformUrl) },
};

async function profile(
  server: BenchServer,
  opts: LoadOptions,
  dir: string,
  scenario: ProfiledScenario,
  platformUrl: string,
) {
  let i = 0;
  const load = { connections: opts.connections, seconds: opts.seconds };
  const flow = scenario === 'orders' || scenario === 'get' ? undefined : FLOWS[scenario];
  const request = scenario === 'get' ? getOrderRequest : postOrderRequest;
  const name = flow?.name ?? (scenario === 'get' ? GET_ORDER : POST_ORDER);
  const next = () => request(server.fixtures[i++ % server.fixtures.length] as Fixture);
  /** One run of the scenario: single requests, or whole flows. */
  const run = (label: string, options: typeof load) =>
    flow
      ? runFlows(label, server.appUrl, flow.flow(server, platformUrl), options)
      : runLoad(label, server.appUrl, next, options);
  await run('warmup', { ...load, seconds: opts.warmupSeconds });
  // CPU per request without the profiler first: sampling costs CPU of its own.
  const cpuNow = async () => {
    const { user, system } = (await (await fetch(`${server.bareUrl}/cpu`)).json()) as NodeJS.CpuUsage;
    return user + system;
  };
  const cpuBefore = await cpuNow();
  const plain = await run(name, load);
  const plainCpuMs = ((await cpuNow()) - cpuBefore) / 1000;
  const flows = (r: Awaited<ReturnType<typeof run>>) =>
    'flowsPerSecond' in r ? `, ${r.flowsPerSecond} flows/s` : '';
  await fetch(`${server.bareUrl}/profile/start`, { method: 'POST' });
  const result = await run(name, load);
  const stopped = await fetch(`${server.bareUrl}/profile/stop`, { method: 'POST' });
  const { cpuMicros, profile } = (await stopped.json()) as { cpuMicros: number; profile: CpuProfile };
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${scenario}-${new Date().toISOString().replaceAll(':', '-')}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const text = [
    `Without the profiler: ${plain.requestsPerSecond} req/s${flows(plain)}, p50 ${plain.p50Ms} ms, p99 ${plain.p99Ms} ms; ${(plainCpuMs / plain.requests).toFixed(2)} ms of process CPU (process.cpuUsage) per request (${plain.requests.toLocaleString('en-US')} requests).`,
    `${name}: ${result.requestsPerSecond} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${opts.connections} connections, ${opts.seconds} s (profiler on); profile ${file}`,
    report(profile, result.requests, cpuMicros),
  ].join('\n\n');
  console.log(`\n${text}\n`);
  if (result.errors + result.non2xx + plain.errors + plain.non2xx > 0) process.exitCode = 1;
  return text;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, requests] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/cpu-profile.ts FILE.cpuprofile [REQUESTS]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  console.log(report(profile, requests ? Number(requests) : undefined));
}
