// POST /orders with two priced lines through the whole stack (auth, rate limit, validation,
// pricing engine with three reads, policies, one transaction with order + audit + outbox event),
// beside a raw node-postgres transaction of three INSERTs in the same run. PostgreSQL only.
//
//   DATABASE_URL=postgres://... npm run bench:orders
//   npm run bench:orders -- --smoke
import { markdownTable, runLoad, startBenchServer } from '../harness.js';

if (!process.env.DATABASE_URL) {
  console.error('bench:orders needs DATABASE_URL (PostgreSQL): the baseline is a raw pg transaction');
  process.exit(1);
}
const smoke = process.argv.includes('--smoke');
const seconds = smoke ? 1 : Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

const server = await startBenchServer();
try {
  let i = 0;
  const order = () => {
    const f = server.fixtures[i++ % server.fixtures.length] as (typeof server.fixtures)[number];
    return {
      method: 'POST' as const,
      path: '/api/v1/orders',
      headers: { authorization: `Bearer ${f.key}` },
      body: JSON.stringify({
        contactId: '01900000-0000-7000-8000-0000000000c1',
        items: [
          { productId: f.productId, quantity: 3 },
          { productId: f.oneTimeProductId, quantity: 12 },
        ],
        customerContext: { segment: 'smb' },
      }),
    };
  };
  const raw = () => ({ method: 'POST' as const, path: '/raw-tx', body: '{}' });
  await runLoad('warmup', server.appUrl, order, { connections, seconds: smoke ? 1 : 3 });
  await runLoad('warmup', server.bareUrl, raw, { connections, seconds: smoke ? 1 : 3 });
  const results = [
    await runLoad('raw pg transaction, 3 INSERTs', server.bareUrl, raw, { connections, seconds }),
    await runLoad('API: POST /orders, 2 priced lines', server.appUrl, order, { connections, seconds }),
  ];
  const [rawResult, api] = results as [(typeof results)[number], (typeof results)[number]];
  console.log(
    `\norder-create: database=${server.database} rateLimiter=${server.rateLimiter} tenants/keys=${server.fixtures.length} connections=${connections} seconds=${seconds}\n`,
  );
  console.log(markdownTable(results));
  console.log(
    `\nPOST /orders at ${((api.requestsPerSecond / rawResult.requestsPerSecond) * 100).toFixed(1)}% of the raw transaction rate (target >= 50%), p99 ${api.p99Ms} ms (target < 50 ms)`,
  );
  if (results.some((r) => r.errors > 0 || r.non2xx > 0)) {
    console.error('bench: some requests failed');
    process.exitCode = 1;
  }
} finally {
  await server.stop();
}
