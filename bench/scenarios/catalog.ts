// The catalog's rows: GET /catalog/search over a tenant of 100,000 products beside the raw SQL of
// the same statement (target: at least 60% of its req/s), and POST /orders of stock-tracked
// products beside the same order of untracked ones (target: within 10%). Each pair alternates
// rounds. `npm run bench -- --only=catalog` runs these rows alone.
import { SEARCH_QUERIES } from '../catalog-seed.js';
import type { BenchServer, Fixture } from '../harness.js';
import { BASELINES, type LoadOptions, type Measured, measureJobs, postOrderRequest } from './api.js';

export const SEARCH_ROW = 'GET /catalog/search';
/**
 * A broad query reads thousands of matches (about 50 ms of PostgreSQL's CPU for "mug"): 4
 * connections keep both cores busy; 20 would only queue behind them.
 */
const SEARCH_CONNECTIONS = 4;
export const TRACKED_ORDER_ROW = 'order create (POST /orders), products with stock tracking';

export async function catalogScenarios(server: BenchServer, opts: LoadOptions): Promise<Measured[]> {
  const { search, tracked } = server.catalog;
  const rounds = opts.seconds >= 3 ? 3 : 1;
  let n = 0;
  const nextQuery = () => SEARCH_QUERIES[n++ % SEARCH_QUERIES.length] as string;
  const label = `${SEARCH_ROW} (${search.products.toLocaleString('en-US')} products; ${SEARCH_QUERIES.map((q) => `"${q}"`).join(', ')})`;
  const rows = await measureJobs(
    server,
    opts,
    [
      {
        name: BASELINES['raw-search'],
        url: server.bareUrl,
        next: () => ({ path: `/raw/search/${search.tenantId}?q=${encodeURIComponent(nextQuery())}` }),
        connections: SEARCH_CONNECTIONS,
      },
      {
        name: label,
        url: server.appUrl,
        next: () => ({
          path: `/api/v1/catalog/search?q=${encodeURIComponent(nextQuery())}`,
          headers: {
            authorization: `Bearer ${search.keys[n % search.keys.length]}`,
            'accept-language': 'en',
          },
        }),
        baseline: 'raw-search',
        connections: SEARCH_CONNECTIONS,
      },
    ],
    rounds,
  );
  let i = 0;
  const rotate = () => server.fixtures[i++ % server.fixtures.length] as Fixture;
  rows.push(
    ...(await measureJobs(
      server,
      opts,
      [
        { name: BASELINES['orders-untracked'], url: server.appUrl, next: () => postOrderRequest(rotate()) },
        {
          name: TRACKED_ORDER_ROW,
          url: server.appUrl,
          next: () => {
            const f = rotate();
            return postOrderRequest({ ...f, ...(tracked[f.tenantId] as (typeof tracked)[string]) });
          },
          baseline: 'orders-untracked',
        },
      ],
      rounds,
    )),
  );
  return rows;
}
