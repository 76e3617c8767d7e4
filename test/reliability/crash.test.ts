import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, startApp, type TestApp, usingPostgres } from '../harness.js';
import { type Receiver, startReceiver, TEST_CA_FILE } from '../support/webhook-receiver.js';
import { type Child, freePort, kill, killAll, spawnChild, waitReady } from './support/child-server.js';

// Crash consistency: a child server on PostgreSQL takes a mixed write load (orders, PATCHes,
// payments, accounts) for a tenant subscribed to every event; it is SIGKILLed at a random moment
// and restarted on the same port while the clients keep retrying each request with its own
// Idempotency-Key (as a careful client does). Then: every request ends 2xx and exists exactly
// once; every committed change has its event and its audit entry; every event reaches the
// receiver at least once; no delivery is left leased or unfinished.

const SMOKE = process.env.RELIABILITY_SMOKE === '1';
const KILL_POINTS = Number(process.env.CRASH_RUNS ?? (SMOKE ? 1 : 5));
const CLIENTS = 4;
const OPS_PER_CLIENT = SMOKE ? 25 : 40;

type Kind = 'order' | 'patch' | 'payment' | 'account';
interface Done {
  kind: Kind;
  key: string;
  status: number;
  id?: string;
  attempts: number;
}

async function rows<T>(t: TestApp, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await t.deps.db.execute(query)) as unknown as { rows: T[] }).rows;
}

describe.skipIf(!usingPostgres)('crash consistency (SIGKILL under load, PostgreSQL)', () => {
  let t: TestApp;
  let receiver: Receiver;
  const secret = randomBytes(32).toString('hex');

  beforeAll(async () => {
    t = await startApp();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await killAll();
    await receiver.close();
    await t.app.close();
  });

  const childEnv = () => ({
    DATABASE_URL: process.env.DATABASE_URL as string,
    WEBHOOK_SECRET_KEY: secret,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_CA_FILE: TEST_CA_FILE,
  });

  for (let run = 1; run <= KILL_POINTS; run++) {
    it(`kill point ${run}/${KILL_POINTS}: exactly once, events + audit, every event delivered`, async () => {
      const port = await freePort();
      let server: Child = spawnChild(port, childEnv());
      await waitReady(server);
      const base = `http://127.0.0.1:${port}/api/v1`;
      const tenant = await createTestTenant(t.deps);
      const send = (
        method: string,
        path: string,
        key: string,
        body?: unknown,
        headers: Record<string, string> = {},
      ) =>
        fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(10_000),
        });
      const must = async (res: Promise<Response>) => {
        const r = await res;
        if (r.status >= 300) throw new Error(`${r.status} ${await r.text()}`);
        return ((await r.json()) as { data: any }).data;
      };
      const hook = await must(
        send('POST', '/webhooks', tenant.keys.commerce, { url: receiver.url, events: ['*'] }),
      );
      const product = await must(
        send('POST', '/admin/products', tenant.keys.admin, {
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
        }),
      );
      const since = new Date(hook.createdAt);

      /** One logical request, retried with the same Idempotency-Key until it gets a final answer. */
      const attempt = async (kind: Kind, method: string, path: string, body: unknown): Promise<Done> => {
        const key = randomUUID();
        for (let attempts = 1; attempts <= 400; attempts++) {
          try {
            const res = await send(method, path, tenant.keys.commerce, body, { 'idempotency-key': key });
            const text = await res.text();
            const retry = res.status >= 500 || (res.status === 409 && text.includes('idempotency_in_flight'));
            if (!retry) {
              const id = res.status < 300 ? (JSON.parse(text).data.id as string) : undefined;
              return { kind, key, status: res.status, attempts, ...(id ? { id } : {}) };
            }
          } catch {
            // connection refused or reset: the server is down or was killed mid-request
          }
          await new Promise((r) => setTimeout(r, 150));
        }
        return { kind, key, status: 0, attempts: 400 };
      };

      const done: Done[] = [];
      let patchNo = 0;
      const client = async (c: number) => {
        const mine: string[] = [];
        for (let i = 0; i < OPS_PER_CLIENT; i++) {
          const roll = (i * 7 + c * 3) % 20;
          let d: Done;
          if (roll < 8 || mine.length === 0) {
            d = await attempt('order', 'POST', '/orders', {
              items: [{ productId: product.id, quantity: 1 + (i % 3) }],
            });
            if (d.id) mine.push(d.id);
          } else if (roll < 13) {
            d = await attempt('patch', 'PATCH', `/orders/${mine[i % mine.length]}`, {
              status: `s-${++patchNo}`,
            });
          } else if (roll < 17) {
            d = await attempt('payment', 'POST', '/payments', {
              accountId: `acct_${c}`,
              amountCents: 100 + i,
              currency: 'USD',
            });
          } else {
            d = await attempt('account', 'POST', '/accounts', { name: `Acme ${c}-${i}` });
          }
          done.push(d);
        }
      };

      const load = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
      // The kill point: a random moment while the load runs.
      const killAfter = 300 + Math.floor(Math.random() * 2_500);
      await new Promise((r) => setTimeout(r, killAfter));
      const before = done.length;
      await kill(server, 'SIGKILL');
      server = spawnChild(port, childEnv());
      await waitReady(server);
      await load;
      console.log(
        `kill point ${run}: SIGKILL after ${killAfter} ms with ${before}/${CLIENTS * OPS_PER_CLIENT} requests answered; ` +
          `max attempts of one request ${Math.max(...done.map((d) => d.attempts))}`,
      );

      // Every request got a final 2xx (none lost, none stuck "in flight").
      expect(done.filter((d) => d.status < 200 || d.status >= 300)).toEqual([]);
      const ids = (kind: Kind) => done.filter((d) => d.kind === kind).map((d) => d.id as string);

      // Exactly once: the rows are exactly the acknowledged ones, no duplicates.
      const orderRows = await rows<{ id: string }>(
        t,
        sql`select id from orders where tenant_id = ${tenant.tenantId}`,
      );
      expect(orderRows.map((r) => r.id).sort()).toEqual(ids('order').sort());
      const paymentRows = await rows<{ id: string }>(
        t,
        sql`select id from payment_sessions where tenant_id = ${tenant.tenantId}`,
      );
      expect(paymentRows.map((r) => r.id).sort()).toEqual(ids('payment').sort());
      const accountRows = await rows<{ id: string }>(
        t,
        sql`select id from organizations where tenant_id = ${tenant.tenantId}`,
      );
      expect(accountRows.map((r) => r.id).sort()).toEqual(ids('account').sort());

      // Each committed change has its event and its audit entry (and only one of each).
      const count = async (query: ReturnType<typeof sql>) => (await rows<{ n: number }>(t, query))[0]?.n;
      const events = (type: string) =>
        count(
          sql`select count(*)::int as n from events where tenant_id = ${tenant.tenantId} and type = ${type}`,
        );
      const audits = (action: string) =>
        count(
          sql`select count(*)::int as n from audit_logs where tenant_id = ${tenant.tenantId} and action = ${action}`,
        );
      const n = (kind: Kind) => done.filter((d) => d.kind === kind).length;
      expect(await events('order.created')).toBe(n('order'));
      expect(await audits('order.create')).toBe(n('order'));
      expect(await events('order.updated')).toBe(n('patch'));
      expect(await audits('order.update')).toBe(n('patch'));
      expect(await events('payment.session_created')).toBe(n('payment'));
      expect(await audits('payment.create')).toBe(n('payment'));
      expect(await events('account.created')).toBe(n('account'));
      expect(await audits('account.create')).toBe(n('account'));
      // Every order's event is about that order.
      const orderEvents = await rows<{ rid: string }>(
        t,
        sql`select payload->>'id' as rid from events where tenant_id = ${tenant.tenantId} and type = 'order.created'`,
      );
      expect(orderEvents.map((e) => e.rid).sort()).toEqual(ids('order').sort());

      // Every event since the subscription reaches the receiver at least once. A delivery leased by
      // the killed process is sent again when its lease (60 s) runs out.
      const eventIds = (
        await rows<{ id: string }>(
          t,
          sql`select id from events where tenant_id = ${tenant.tenantId} and occurred_at >= ${since.toISOString()}`,
        )
      ).map((e) => e.id);
      const deadline = Date.now() + 150_000;
      let missing = eventIds;
      while (Date.now() < deadline) {
        const got = receiver.countsById();
        missing = eventIds.filter((id) => !got.has(id));
        if (missing.length === 0) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(missing).toEqual([]);
      // No delivery left leased or unfinished: one the killed process held (it may even have been
      // received) is due again when its lease runs out, and is then sent and finished.
      let unfinished: unknown[] = [];
      for (let i = 0; i < 400; i++) {
        unfinished = await rows(
          t,
          sql`select event_id, status, lease_token from webhook_deliveries
              where tenant_id = ${tenant.tenantId} and (status <> 'succeeded' or lease_token is not null)`,
        );
        if (unfinished.length === 0) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(unfinished).toEqual([]);
      const duplicates = [...receiver.countsById().entries()].filter(
        ([id, c]) => eventIds.includes(id) && c > 1,
      );
      console.log(
        `kill point ${run}: ${eventIds.length} events delivered, ${duplicates.length} more than once (resent after the crash)`,
      );
      await kill(server, 'SIGTERM');
    }, 300_000);
  }
});
