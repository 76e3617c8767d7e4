import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/modules/api-keys/index.js';
import { createTenant } from '../../src/modules/tenants/index.js';
import { createScratchDatabase, usingPostgres } from '../harness.js';
import { type Child, freePort, kill, killAll, spawnChild, waitReady } from './support/child-server.js';

// "No failure under a burst": one instance with its default pool (DB_POOL_SIZE 10) takes 1,000
// concurrent connections, each a GET /orders with one of 100 keys it has never seen (cold: every
// key needs a database read first). Key lookups are single-flight and requests wait for a
// connection instead of failing, so every answer is 200. The smoke runs 300 connections, 30 keys.

const SMOKE = process.env.RELIABILITY_SMOKE === '1';
const CONNECTIONS = SMOKE ? 300 : 1_000;
const KEYS = SMOKE ? 30 : 100;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

describe.skipIf(!usingPostgres)('a burst on one instance (PostgreSQL)', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let server: Child;
  const keys: string[] = [];

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    for (let i = 0; i < KEYS; i++) {
      const tenant = await createTenant(scratch.database.db, `burst ${i}`);
      const { secret } = await issueApiKey(scratch.database.db, tenant.id, {
        name: 'burst',
        scopes: ['read'],
        rateTier: 'unlimited',
        environment: 'sandbox',
      });
      keys.push(secret);
    }
    server = spawnChild(await freePort(), {
      DATABASE_URL: scratch.url,
      DB_POOL_WAIT_MS: process.env.BURST_POOL_WAIT_MS ?? '',
      APP_ENCRYPTION_KEYS: `burst:${'ab'.repeat(32)}`,
      WEBHOOK_WORKER: 'false',
    });
    await waitReady(server);
  }, 120_000);
  afterAll(async () => {
    if (server) await kill(server, 'SIGTERM');
    await killAll();
    await scratch?.drop();
  });

  it(`${CONNECTIONS} concurrent connections, ${KEYS} cold keys: every answer 200`, async () => {
    // One connection per request, all opened at once.
    const agent = new Agent({ connections: CONNECTIONS, pipelining: 0, keepAliveTimeout: 1 });
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, i) => {
        const t0 = performance.now();
        try {
          const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/orders`, {
            headers: { authorization: `Bearer ${keys[i % KEYS]}` },
            dispatcher: agent,
          });
          const body = await res.text();
          return { status: res.status, ms: performance.now() - t0, body: res.status === 200 ? '' : body };
        } catch (err) {
          return { status: 0, ms: performance.now() - t0, body: String(err) };
        }
      }),
    );
    await agent.close();
    const latencies = results.map((r) => r.ms).sort((a, b) => a - b);
    const failures = results.filter((r) => r.status !== 200);
    const report = {
      connections: CONNECTIONS,
      coldKeys: KEYS,
      seconds: (Date.now() - started) / 1000,
      p50ms: Math.round(percentile(latencies, 50)),
      p99ms: Math.round(percentile(latencies, 99)),
      maxMs: Math.round(latencies.at(-1) ?? 0),
      errors: failures.length,
    };
    console.log(`burst: ${JSON.stringify(report)}`);
    expect(failures.slice(0, 3)).toEqual([]);
  }, 120_000);
});
