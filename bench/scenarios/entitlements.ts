// GET /entitlements/check beside two bare Fastify routes answering the same question through our
// data access (src/modules/subscriptions/entitlements/reader.ts): with nothing remembered (the account lookup,
// the subscriptions, then their products: three reads; the target's baseline), and through a warm
// reader like the route's (one read: what the HTTP stack costs). Alternating rounds, like the rows
// with targets in api.ts; load rotates over the bench tenants, each with an account holding a plan
// and an add-on (bench/server.ts).
import { type BenchServer, type Fixture, type LoadResult, runLoad } from '../harness.js';
import { BASELINES, type LoadOptions, type Measured, withPeakRss } from './api.js';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function entitlementScenarios(server: BenchServer, opts: LoadOptions): Promise<Measured[]> {
  let i = 0;
  const rotate = () => server.fixtures[i++ % server.fixtures.length] as Fixture;
  const jobs = [
    {
      name: BASELINES['entitlements-cold'],
      url: server.bareUrl,
      next: () => {
        const f = rotate();
        return { path: `/cold-read/entitlements/${f.tenantId}/${f.accountId}` };
      },
    },
    {
      name: BASELINES['entitlements-read'],
      url: server.bareUrl,
      next: () => {
        const f = rotate();
        return { path: `/same-read/entitlements/${f.tenantId}/${f.accountId}` };
      },
    },
    {
      name: 'GET /entitlements/check',
      url: server.appUrl,
      baseline: 'entitlements-cold' as const,
      next: () => {
        const f = rotate();
        return {
          path: `/api/v1/entitlements/check?accountId=${f.accountId}&feature=seats`,
          headers: { authorization: `Bearer ${f.key}` },
        };
      },
    },
  ];
  const rounds = opts.seconds >= 3 ? 3 : 1;
  const seconds = rounds > 1 ? Math.max(3, Math.round(opts.seconds / 2)) : opts.seconds;
  const results = jobs.map(() => [] as (LoadResult & { rssBytes: number })[]);
  for (const job of jobs)
    await runLoad('warmup', job.url, job.next, {
      connections: opts.connections,
      seconds: opts.warmupSeconds,
    });
  for (let round = 0; round < rounds; round++) {
    for (const [k, job] of jobs.entries()) {
      const [result, rssBytes] = await withPeakRss(server, () =>
        runLoad(job.name, job.url, job.next, { connections: opts.connections, seconds }),
      );
      results[k]?.push({ ...result, rssBytes });
    }
  }
  return jobs.map((job, k) => {
    const runs = results[k] ?? [];
    return {
      name: job.name,
      requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
      p50Ms: median(runs.map((r) => r.p50Ms)),
      p99Ms: median(runs.map((r) => r.p99Ms)),
      requests: runs.reduce((sum, r) => sum + r.requests, 0),
      non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
      errors: runs.reduce((sum, r) => sum + r.errors, 0),
      rssBytes: Math.max(...runs.map((r) => r.rssBytes)),
      ...('baseline' in job ? { baseline: job.baseline } : {}),
      ...(rounds > 1 ? { rounds } : {}),
    };
  });
}
