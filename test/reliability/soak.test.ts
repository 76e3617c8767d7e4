import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestTenant, startApp, type TestApp, usingPostgres } from '../harness.js';
import { type Child, freePort, kill, killAll, spawnChild, waitReady } from './support/child-server.js';

// Soak: SOAK_SECONDS (600 in the full run; skipped in smoke) of mixed load over loopback against
// a child server on PostgreSQL: reads, order creates and PATCHes, pricing. The list read is
// filtered (`status=s1`, at most one order): GET /orders has no pagination, so an unfiltered
// list of a tenant that gains ~10 orders a second would grow all along the soak. Per minute: requests,
// errors, p99; the server's RSS from /proc. RSS must stay flat, errors must not appear, p99 must
// not drift.

const SMOKE = process.env.RELIABILITY_SMOKE === '1';
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const CLIENTS = 8;

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
};
const p99 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0;
};

describe.skipIf(SMOKE || !usingPostgres)(`soak (${SECONDS} s of mixed load, PostgreSQL)`, () => {
  let t: TestApp | undefined;
  let server: Child | undefined;
  afterAll(async () => {
    if (server) await kill(server, 'SIGTERM');
    await killAll();
    await t?.app.close();
  });

  it(
    'RSS stays flat, no errors, p99 stable',
    async () => {
      const app = await startApp();
      t = app;
      const port = await freePort();
      server = spawnChild(port, {
        DATABASE_URL: process.env.DATABASE_URL as string,
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      });
      await waitReady(server);
      const pid = server.child.pid as number;
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
      }
      const minutes: Minute[] = [];
      const bucket = () => {
        minutes.push({ requests: 0, errors: 0, latencies: [], rss: 0 });
        return minutes[minutes.length - 1] as Minute;
      };
      let current = bucket();
      const startRss = rssMb(pid);
      const end = Date.now() + SECONDS * 1000;
      const ticker = setInterval(() => {
        current.rss = rssMb(pid);
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
      current.rss = rssMb(pid);
      const full = minutes.filter((m) => m.requests > 0);
      const table = full.map((m, i) => ({
        minute: i + 1,
        requests: m.requests,
        errors: m.errors,
        p99ms: Number(p99(m.latencies).toFixed(1)),
        rssMb: Number(m.rss.toFixed(0)),
      }));
      console.table(table);
      const first = table[0] as (typeof table)[number];
      const last = table[table.length - 1] as (typeof table)[number];
      const total = full.reduce((n, m) => n + m.requests, 0);
      const errors = full.reduce((n, m) => n + m.errors, 0);
      console.log(
        `soak: ${total} requests in ${SECONDS} s (${(total / SECONDS).toFixed(0)}/s), errors ${errors}, ` +
          `RSS start ${startRss.toFixed(0)} MB -> end ${last.rssMb} MB, p99 first minute ${first.p99ms} ms -> last ${last.p99ms} ms`,
      );
      expect(Object.fromEntries(statuses)).toEqual({});
      expect(errors).toBe(0);
      // Flat: the end is within 25% (+32 MB of allocator slack) of the first full minute.
      const warm = (table.length > 1 ? first.rssMb : startRss) as number;
      expect(last.rssMb).toBeLessThan(warm * 1.25 + 32);
      // Stable: the last minute's p99 is within 3x the first's (plus 20 ms of scheduler noise on a shared box).
      expect(last.p99ms).toBeLessThan(first.p99ms * 3 + 20);
    },
    30 * 60_000,
  );
});
