import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  createTestTenant,
  startApp,
  type TestApp,
  usingPostgres,
} from '../harness.js';
import { TEST_CA_FILE } from '../support/webhook-receiver.js';
import {
  type Child,
  freePort,
  kill,
  killAll,
  rssMb,
  spawnChild,
  waitForOutput,
  waitReady,
} from './support/child-server.js';
import { type CountingReceiver, startCountingReceiver } from './support/counting-receiver.js';

// Soak: SOAK_SECONDS (600 in the full run; skipped in smoke) of mixed load over loopback against
// a child server on PostgreSQL: reads, order creates and PATCHes, pricing. The list read is
// filtered (`status=s1`, at most one order): GET /orders has no pagination, so an unfiltered
// list of a tenant that gains ~10 orders a second would grow all along the soak. Every tenant has a
// webhook for its order events, sent by a standalone worker process (src/worker.ts; the API runs
// with WEBHOOK_WORKER=false) to a local receiver, so the worker works all along too. Per minute:
// requests, errors, p99; the RSS of the API process and of the worker process from /proc; webhook
// deliveries received and the backlog. Both RSS must stay flat, errors must not appear, p99 must
// not drift, and the worker must keep up: every event delivered once the load stops.
// A scratch database: the worker serves every tenant of the database it opens.

const SMOKE = process.env.RELIABILITY_SMOKE === '1';
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const CLIENTS = 8;

const p99 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0;
};

describe.skipIf(SMOKE || !usingPostgres)(`soak (${SECONDS} s of mixed load, PostgreSQL)`, () => {
  let t: TestApp | undefined;
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;
  let server: Child | undefined;
  let worker: Child | undefined;
  let receiver: CountingReceiver | undefined;
  afterAll(async () => {
    if (server) await kill(server, 'SIGTERM');
    if (worker) await kill(worker, 'SIGTERM');
    await killAll();
    await receiver?.close();
    await t?.app.close();
    await scratch?.drop();
  });

  it(
    'RSS stays flat, no errors, p99 stable',
    async () => {
      scratch = await createScratchDatabase();
      const app = await startApp({ database: scratch.database });
      t = app;
      const hooks = await startCountingReceiver();
      receiver = hooks;
      const env = {
        DATABASE_URL: scratch.url,
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_CA_FILE: TEST_CA_FILE,
      };
      const port = await freePort();
      server = spawnChild(port, { ...env, WEBHOOK_WORKER: 'false' });
      worker = spawnChild(await freePort(), { ...env, LOG_LEVEL: 'info' }, 'src/worker.ts');
      await waitReady(server);
      await waitForOutput(worker, 'webhook delivery worker ready');
      const pid = server.child.pid as number;
      const workerPid = worker.child.pid as number;
      const base = `http://127.0.0.1:${port}/api/v1`;
      const call = async (method: string, path: string, key: string, body?: unknown) => {
        const res = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const text = await res.text();
        return { status: res.status, json: () => JSON.parse(text) };
      };
      // One tenant per client: an unlimited key allows 10,000 requests a minute, more than one
      // client sends, so the rate limit never answers.
      const setup = async () => {
        const tenant = await createTestTenant(app.deps);
        const hook = await call('POST', '/webhooks', tenant.keys.commerce, {
          url: hooks.url,
          events: ['order.created', 'order.updated'],
        });
        if (hook.status !== 201) throw new Error(`webhook: ${hook.status}`);
        const product = (
          await call('POST', '/admin/products', tenant.keys.admin, {
            name: 'Workshop',
            type: 'one_time',
            currency: 'USD',
            charges: [
              {
                name: 'Seat',
                chargeModel: 'flat_fee',
                tiers: [{ upTo: null, unitPriceCents: 0, flatPriceCents: 900 }],
              },
            ],
          })
        ).json().data;
        const order = (
          await call('POST', '/orders', tenant.keys.commerce, {
            items: [{ productId: product.id, quantity: 1 }],
          })
        ).json().data;
        return { tenant, product, order };
      };
      const fixtures = await Promise.all(Array.from({ length: CLIENTS }, () => setup()));
      const statuses = new Map<number, number>();
      interface Minute {
        requests: number;
        errors: number;
        latencies: number[];
        rss: number;
        workerRss: number;
        delivered: number;
        backlog: number;
      }
      const minutes: Minute[] = [];
      const bucket = () => {
        minutes.push({
          requests: 0,
          errors: 0,
          latencies: [],
          rss: 0,
          workerRss: 0,
          delivered: 0,
          backlog: 0,
        });
        return minutes[minutes.length - 1] as Minute;
      };
      /** Deliveries not (yet) succeeded: the worker's backlog. */
      const backlog = async () =>
        (
          (await app.deps.db.execute(
            sql`select count(*)::int as n from webhook_deliveries where status <> 'succeeded'`,
          )) as unknown as { rows: { n: number }[] }
        ).rows[0]?.n ?? 0;
      let current = bucket();
      let deliveredBefore = hooks.total();
      const closeMinute = (m: Minute) => {
        m.rss = rssMb(pid);
        m.workerRss = rssMb(workerPid);
        m.delivered = hooks.total() - deliveredBefore;
        deliveredBefore = hooks.total();
        void backlog().then((n) => {
          m.backlog = n;
        });
      };
      const startRss = rssMb(pid);
      const startWorkerRss = rssMb(workerPid);
      const end = Date.now() + SECONDS * 1000;
      const ticker = setInterval(() => {
        closeMinute(current);
        current = bucket();
      }, 60_000);
      const client = async (c: number) => {
        const { tenant, product, order } = fixtures[c] as (typeof fixtures)[number];
        for (let i = 0; Date.now() < end; i++) {
          const roll = (i + c) % 10;
          const started = performance.now();
          let status: number;
          if (roll < 4) status = (await call('GET', `/orders/${order.id}`, tenant.keys.read)).status;
          else if (roll < 6) status = (await call('GET', '/orders?status=s1', tenant.keys.read)).status;
          else if (roll < 7)
            status = (
              await call('GET', `/pricing/resolve?productId=${product.id}&quantity=3`, tenant.keys.read)
            ).status;
          else if (roll < 9)
            status = (
              await call('POST', '/orders', tenant.keys.commerce, {
                items: [{ productId: product.id, quantity: 1 }],
              })
            ).status;
          else
            status = (
              await call('PATCH', `/orders/${order.id}`, tenant.keys.commerce, { status: `s${i % 7}` })
            ).status;
          const bucketNow = current;
          bucketNow.requests++;
          bucketNow.latencies.push(performance.now() - started);
          if (status >= 300) {
            bucketNow.errors++;
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
      clearInterval(ticker);
      closeMinute(current);
      // The worker catches up once the load stops: every order event of the soak is delivered.
      const drainStarted = Date.now();
      let left = await backlog();
      while (left > 0 && Date.now() - drainStarted < 180_000) {
        await new Promise((r) => setTimeout(r, 1_000));
        left = await backlog();
      }
      const drainSeconds = (Date.now() - drainStarted) / 1000;
      const endWorkerRss = rssMb(workerPid);
      const full = minutes.filter((m) => m.requests > 0);
      const table = full.map((m, i) => ({
        minute: i + 1,
        requests: m.requests,
        errors: m.errors,
        p99ms: Number(p99(m.latencies).toFixed(1)),
        rssMb: Number(m.rss.toFixed(0)),
        workerRssMb: Number(m.workerRss.toFixed(0)),
        delivered: m.delivered,
        backlog: m.backlog,
      }));
      console.table(table);
      const first = table[0] as (typeof table)[number];
      const last = table[table.length - 1] as (typeof table)[number];
      const total = full.reduce((n, m) => n + m.requests, 0);
      const errors = full.reduce((n, m) => n + m.errors, 0);
      const events = (
        (await app.deps.db.execute(
          sql`select id from events where type in ('order.created', 'order.updated')`,
        )) as unknown as { rows: { id: string }[] }
      ).rows.map((e) => e.id);
      const undelivered = events.filter((id) => !hooks.has(id));
      console.log(
        `soak: ${total} requests in ${SECONDS} s (${(total / SECONDS).toFixed(0)}/s), errors ${errors}, ` +
          `RSS start ${startRss.toFixed(0)} MB -> end ${last.rssMb} MB, p99 first minute ${first.p99ms} ms -> last ${last.p99ms} ms; ` +
          `worker RSS start ${startWorkerRss.toFixed(0)} MB -> end ${last.workerRssMb} MB (${endWorkerRss.toFixed(0)} MB drained); ` +
          `${events.length} order events, ${hooks.distinct()} delivered (${hooks.total()} requests), ` +
          `backlog ${left} after ${drainSeconds.toFixed(1)} s of drain`,
      );
      expect(Object.fromEntries(statuses)).toEqual({});
      expect(errors).toBe(0);
      // Flat: the end is within 25% (+32 MB of allocator slack) of the first full minute, for the
      // API process and for the worker process alike.
      const warm = (table.length > 1 ? first.rssMb : startRss) as number;
      expect(last.rssMb).toBeLessThan(warm * 1.25 + 32);
      const warmWorker = (table.length > 1 ? first.workerRssMb : startWorkerRss) as number;
      expect(last.workerRssMb).toBeLessThan(warmWorker * 1.25 + 32);
      // The worker kept up: nothing left undelivered, every order event received.
      expect(left).toBe(0);
      expect(undelivered).toEqual([]);
      // Stable: the last minute's p99 is within 3x the first's (plus 20 ms of scheduler noise on a shared box).
      expect(last.p99ms).toBeLessThan(first.p99ms * 3 + 20);
    },
    30 * 60_000,
  );
});
