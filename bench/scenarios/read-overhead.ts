// What our HTTP stack costs on a data read, and the throughput of price resolution: GET /api/v1/admin/api-keys/{id} through auth, the
// rolling-window rate limit, validation, the envelope and response schema, compared in the same
// run with a bare Fastify route and a bare route doing the same database read. Load rotates over
// many tenants and keys (one unlimited key allows only 10,000 requests a minute).
//
//   npm run bench                              # PGlite in memory, in-process limiter
//   DATABASE_URL=... REDIS_URL=... npm run bench
//   npm run bench -- --smoke                   # 1 s runs: proves the bench still works (CI)
import { markdownTable, runLoad, startBenchServer } from '../harness.js';

const smoke = process.argv.includes('--smoke');
const seconds = smoke ? 1 : Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TARGET_OVERHEAD = 0.25;

const server = await startBenchServer();
try {
  let i = 0;
  const rotate = () => server.fixtures[i++ % server.fixtures.length] as (typeof server.fixtures)[number];
  const api = () => {
    const f = rotate();
    return { path: `/api/v1/admin/api-keys/${f.keyId}`, headers: { authorization: `Bearer ${f.key}` } };
  };
  const resolve = () => {
    const f = rotate();
    return {
      path: `/api/v1/pricing/resolve?productId=${f.productId}&quantity=${1 + (i % 40)}&segment=smb`,
      headers: { authorization: `Bearer ${f.key}` },
    };
  };
  const bareRead = () => {
    const f = rotate();
    return { path: `/read/${f.tenantId}/${f.keyId}` };
  };
  const opts = { connections, seconds };
  // Warm up JIT, pools and the key cache, then measure.
  await runLoad('warmup', server.appUrl, api, { connections, seconds: smoke ? 1 : 3 });
  await runLoad('warmup', server.bareUrl, bareRead, { connections, seconds: smoke ? 1 : 3 });
  const results = [
    await runLoad('bare Fastify, no I/O', server.bareUrl, () => ({ path: '/bare' }), opts),
    await runLoad('bare Fastify + same DB read', server.bareUrl, bareRead, opts),
    await runLoad('API: auth + rate limit + envelope + DB read', server.appUrl, api, opts),
    await runLoad('API: GET /pricing/resolve (1 read + engine)', server.appUrl, resolve, opts),
  ];
  const [, bareReadResult, apiResult] = results as [
    unknown,
    (typeof results)[number],
    (typeof results)[number],
  ];
  const overhead = 1 - apiResult.requestsPerSecond / bareReadResult.requestsPerSecond;
  console.log(
    `\nread-overhead: database=${server.database} rateLimiter=${server.rateLimiter} tenants/keys=${server.fixtures.length} connections=${connections} seconds=${seconds}\n`,
  );
  console.log(markdownTable(results));
  console.log(
    `\noverhead vs bare route with the same read: ${(overhead * 100).toFixed(1)}% (target <= ${TARGET_OVERHEAD * 100}%)`,
  );
  const failed = results.some((r) => r.errors > 0 || r.non2xx > 0);
  if (failed) {
    console.error('bench: some requests failed');
    process.exitCode = 1;
  }
} finally {
  await server.stop();
}
