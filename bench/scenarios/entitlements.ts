// GET /entitlements/check beside two bare Fastify routes answering the same question through our
// data access (src/modules/subscriptions/entitlements/reader.ts): with nothing remembered (the account lookup,
// the subscriptions, then their products: three reads; the target's baseline), and through a warm
// reader like the route's (one read: what the HTTP stack costs). Alternating rounds, like the rows
// with targets in api.ts; load rotates over the bench tenants, each with an account holding a plan
// and an add-on (bench/server.ts).
import type { BenchServer, Fixture } from '../harness.js';
import { BASELINES, type Job, type LoadOptions, type Measured, measureJobs } from './api.js';

export async function entitlementScenarios(server: BenchServer, opts: LoadOptions): Promise<Measured[]> {
  let i = 0;
  const rotate = () => server.fixtures[i++ % server.fixtures.length] as Fixture;
  const jobs: Job[] = [
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
      baseline: 'entitlements-cold',
      next: () => {
        const f = rotate();
        return {
          path: `/api/v1/entitlements/check?accountId=${f.accountId}&feature=seats`,
          headers: { authorization: `Bearer ${f.key}` },
        };
      },
    },
  ];
  return measureJobs(server, opts, jobs, opts.seconds >= 3 ? 3 : 1);
}
