// Webhook delivery on PostgreSQL, to a local HTTPS receiver in its own process:
//   1. throughput: N deliveries queued at once, then the worker started; deliveries per second
//      until every one is received AND recorded `succeeded`;
//   2. latency: events written through the API (POST /accounts -> account.created) at a steady
//      rate; commit-to-receipt time per event, p50/p99 (commit = when the API call returned).
// The worker runs in the API process (this one), as by default. Run by bench/run.ts.
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openPostgres, rowsOf } from '../../src/db/client.js';
import { createDeps } from '../../src/deps.js';
import { MemoryRateLimiter } from '../../src/http/rate-limit/memory-limiter.js';
import { issueApiKey } from '../../src/modules/api-keys/index.js';
import { createTenant } from '../../src/modules/tenants/index.js';
import { fanOutFromEvents, startDeliveryWorker } from '../../src/modules/webhooks/index.js';
import { TABLE_LAYOUT } from '../../src/schema.js';

export interface WebhookResult {
  backlog: number;
  concurrency: number;
  rate: number;
  seconds: number;
  /** Deliveries per second until all were received. */
  receivedPerSecond: number;
  /** Deliveries per second until all were received AND recorded `succeeded`. */
  recordedPerSecond: number;
  achievedRate: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** This process's RSS at the end (API + worker run here). */
  rssBytes: number;
}

export async function webhookDelivery(url: string, smoke: boolean): Promise<WebhookResult> {
  const backlog = smoke ? 500 : Number(process.env.BENCH_DELIVERIES ?? 20_000);
  const rate = Number(process.env.BENCH_EVENT_RATE ?? 200);
  const seconds = smoke ? 2 : Number(process.env.BENCH_WEBHOOK_SECONDS ?? 15);
  const concurrency = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 128);
  const CA = fileURLToPath(new URL('../../test/fixtures/tls/ca.crt', import.meta.url));

  const logger = pino({ level: 'warn' });
  const config = {
    ...loadConfig({
      APP_ENV: 'sandbox',
      LOG_LEVEL: 'warn',
      APP_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('hex')}`,
    }),
    databaseUrl: url,
    webhookAllowPrivateTargets: true,
    webhookCaFile: CA,
    webhookConcurrency: concurrency,
    // One tenant, one receiver: measures the worker's throughput, so its share is every slot.
    webhookTenantConcurrency: concurrency,
    webhookReceiverConcurrency: concurrency,
  };

  // --- the receiver ------------------------------------------------------------------------------
  const receiver: ChildProcess = fork(fileURLToPath(new URL('../webhook-receiver.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
  });
  const ask = <T>(cmd: string, key: string) =>
    new Promise<T>((resolve) => {
      const onMessage = (message: Record<string, unknown>) => {
        if (key in message) {
          receiver.off('message', onMessage);
          resolve(message[key] as T);
        }
      };
      receiver.on('message', onMessage);
      receiver.send({ cmd });
    });
  const port = await new Promise<number>((resolve) =>
    receiver.once('message', (m: { port: number }) => resolve(m.port)),
  );

  // --- the API, worker not yet started -----------------------------------------------------------
  const database = openPostgres({ url, logger });
  await database.migrate(TABLE_LAYOUT);
  const deps = createDeps(config, database, logger, { rateLimiter: new MemoryRateLimiter() });
  const app = await buildApp(deps);
  const tenant = await createTenant(deps.db, `webhook bench ${Date.now()}`);
  const { secret: key } = await issueApiKey(deps.db, tenant.id, {
    name: 'bench',
    scopes: ['commerce'],
    rateTier: 'unlimited',
    environment: config.appEnv,
  });
  const headers = { authorization: `Bearer ${key}` };
  const hook = await app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers,
    payload: { url: `https://localhost:${port}/hooks`, events: ['account.created'] },
  });
  if (hook.statusCode !== 201) throw new Error(`webhook create failed: ${hook.body}`);
  const subscriptionId = hook.json().data.id as string;

  const countSucceeded = async () =>
    Number(
      rowsOf<{ n: string }>(
        await deps.db.execute(sql`select count(*) as n from webhook_deliveries
          where tenant_id = ${tenant.id} and subscription_id = ${subscriptionId} and status = 'succeeded'`),
      )[0]?.n,
    );
  const waitUntil = async (done: () => Promise<boolean>, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error('timed out waiting for deliveries');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const percentile = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

  // --- 1. throughput ------------------------------------------------------------------------------
  const now = new Date();
  await deps.db.execute(sql`with ev as (
      insert into events (tenant_id, id, type, occurred_at, payload)
      select ${tenant.id}::uuid, gen_random_uuid(), 'account.created', ${now}, jsonb_build_object('id', gen_random_uuid())
      from generate_series(1, ${backlog})
      returning tenant_id, id, type, payload
    ) ${fanOutFromEvents(now, tenant.id)}`);
  const started = performance.now();
  const stopWorker = startDeliveryWorker(deps);
  deps.deliveries.queued();
  await waitUntil(async () => (await ask<number>('count', 'count')) >= backlog, 300_000);
  const receivedMs = performance.now() - started;
  await waitUntil(async () => (await countSucceeded()) >= backlog, 60_000);
  const recordedMs = performance.now() - started;
  const received = await ask<number>('count', 'count');

  // --- 2. latency at a steady rate ----------------------------------------------------------------
  receiver.send({ cmd: 'reset' });
  const committedAt = new Map<string, number>();
  const total = rate * seconds;
  const t0 = performance.now();
  const calls: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    calls.push(
      app
        .inject({ method: 'POST', url: '/api/v1/accounts', headers, payload: { name: `bench ${i}` } })
        .then((res) => {
          if (res.statusCode !== 201) throw new Error(`POST /accounts: ${res.statusCode} ${res.body}`);
          committedAt.set(res.json().data.id, performance.timeOrigin + performance.now());
        }),
    );
  }
  await Promise.all(calls);
  const achievedRate = total / ((performance.now() - t0) / 1000);
  await waitUntil(async () => (await ask<number>('count', 'count')) >= total, 60_000);
  const receipts = await ask<[string, number][]>('receipts', 'receipts');
  const latencies = receipts
    .map(([id, at]) => at - (committedAt.get(id) ?? Number.NaN))
    .filter((ms) => !Number.isNaN(ms))
    .sort((a, b) => a - b);

  await stopWorker();
  await app.close();
  await database.close();
  receiver.kill();
  if (received !== backlog || latencies.length !== total) {
    throw new Error(
      `webhooks: expected ${backlog} + ${total} receipts, got ${received} + ${latencies.length}`,
    );
  }
  return {
    backlog,
    concurrency,
    rate,
    seconds,
    receivedPerSecond: Math.round(backlog / (receivedMs / 1000)),
    recordedPerSecond: Math.round(backlog / (recordedMs / 1000)),
    achievedRate: Math.round(achievedRate),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.at(-1) ?? Number.NaN,
    rssBytes: process.memoryUsage().rss,
  };
}
