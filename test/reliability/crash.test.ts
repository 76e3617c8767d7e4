import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  createTestTenant,
  startApp,
  type TestApp,
  usingPostgres,
} from '../harness.js';
import { type Receiver, startReceiver, TEST_CA_FILE } from '../support/webhook-receiver.js';
import { type Child, freePort, kill, killAll, spawnChild, waitReady } from './support/child-server.js';

// Crash consistency: a child server on PostgreSQL takes a mixed write load (orders, PATCHes,
// payments, accounts, billing-linked subscription creates and quantity changes) for a tenant
// subscribed to every event; it is SIGKILLed at a random moment and restarted on the same port
// while the clients keep retrying each request with its own Idempotency-Key (as a careful client
// does). Then: every request ends 2xx and exists exactly once (in the billing system too, for
// subscriptions and their invoices); every committed change has its event and its audit entry;
// every event reaches the receiver at least once; no delivery is left leased or unfinished.
// The child runs on a scratch database: its delivery worker and subscription scheduler serve every
// tenant of the database they open. (A standalone worker killed mid-delivery: worker-crash.test.ts.)

const SMOKE = process.env.RELIABILITY_SMOKE === '1';
const KILL_POINTS = Number(process.env.CRASH_RUNS ?? (SMOKE ? 1 : 5));
const CLIENTS = 4;
const OPS_PER_CLIENT = SMOKE ? 25 : 40;

type Kind = 'order' | 'patch' | 'payment' | 'account' | 'subscription' | 'subchange';
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
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let t: TestApp;
  let receiver: Receiver;
  const secret = randomBytes(32).toString('hex');

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    t = await startApp({ database: scratch.database });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await killAll();
    await receiver?.close();
    await t?.app.close();
    await scratch?.drop();
  });

  const childEnv = () => ({
    DATABASE_URL: scratch.url,
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
      // Subscriptions: the built-in billing engine, a per-seat plan, and per client an account
      // linked to its own billing account, so each create is provisioned (and its first period
      // invoiced) in the billing system before the local commit, and each quantity change is
      // charged there too: the window a SIGKILL can hit between the two.
      await must(send('PUT', '/admin/billing-integration', tenant.keys.admin, { adapter: 'builtin' }));
      const plan = await must(
        send('POST', '/admin/products', tenant.keys.admin, {
          name: 'Seats',
          type: 'subscription',
          family: 'core',
          rank: 1,
          billingInterval: 'month',
          currency: 'USD',
          entitlements: { seats: 5 },
          charges: [
            { name: 'Seats', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 1000 }] },
          ],
        }),
      );
      const owners: string[] = [];
      for (let c = 0; c < CLIENTS; c++) {
        const billing = await must(
          send('POST', '/admin/billing/accounts', tenant.keys.admin, {
            name: `Initech ${c}`,
            currency: 'USD',
          }),
        );
        const owner = await must(
          send('POST', '/accounts', tenant.keys.commerce, { name: `Initech ${c}`, externalId: billing.id }),
        );
        owners.push(owner.id);
      }
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
      /** Each subscription's quantity and version as its client last saw them acknowledged. */
      const subs = new Map<string, { quantity: number; version: number }>();
      const client = async (c: number) => {
        const mine: string[] = [];
        const mySubs: string[] = [];
        for (let i = 0; i < OPS_PER_CLIENT; i++) {
          const roll = (i * 7 + c * 3) % 20;
          let d: Done;
          if (roll < 6 || mine.length === 0) {
            d = await attempt('order', 'POST', '/orders', {
              items: [{ productId: product.id, quantity: 1 + (i % 3) }],
            });
            if (d.id) mine.push(d.id);
          } else if (roll < 10) {
            d = await attempt('patch', 'PATCH', `/orders/${mine[i % mine.length]}`, {
              status: `s-${++patchNo}`,
            });
          } else if (roll < 13) {
            d = await attempt('payment', 'POST', '/payments', {
              accountId: `acct_${c}`,
              amountCents: 100 + i,
              currency: 'USD',
            });
          } else if (roll < 15) {
            d = await attempt('account', 'POST', '/accounts', { name: `Acme ${c}-${i}` });
          } else if (roll < 17 || mySubs.length === 0) {
            const quantity = 1 + (i % 3);
            d = await attempt('subscription', 'POST', '/subscriptions', {
              productId: plan.id,
              quantity,
              organizationId: owners[c],
            });
            if (d.id) {
              mySubs.push(d.id);
              subs.set(d.id, { quantity, version: 1 });
            }
          } else {
            // One more seat, now (prorated): charged in the billing system, then committed here.
            // Only this client changes its subscriptions, one request at a time.
            const id = mySubs[i % mySubs.length] as string;
            const known = subs.get(id) as { quantity: number; version: number };
            d = await attempt('subchange', 'POST', `/subscriptions/${id}/change-quantity`, {
              quantity: known.quantity + 1,
              timing: 'immediate',
            });
            if (d.status >= 200 && d.status < 300)
              subs.set(id, { quantity: known.quantity + 1, version: known.version + 1 });
          }
          done.push(d);
        }
      };

      const loadStarted = Date.now();
      const load = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
      // The kill point: a random moment while the load runs. Picked by progress (after a random
      // 5-90% of the requests were answered), not by time: on a fast machine the whole load takes
      // less than two seconds, and a kill by the clock would often come after it.
      const total = CLIENTS * OPS_PER_CLIENT;
      const killAt = Math.floor(total * (0.05 + Math.random() * 0.85));
      while (done.length < killAt) await new Promise((r) => setTimeout(r, 2));
      const killAfter = Date.now() - loadStarted;
      const before = done.length;
      await kill(server, 'SIGKILL');
      server = spawnChild(port, childEnv());
      await waitReady(server);
      await load;
      console.log(
        `kill point ${run}: SIGKILL after ${killAfter} ms with ${before}/${total} requests answered; ` +
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
      expect(accountRows.map((r) => r.id).sort()).toEqual([...owners, ...ids('account')].sort());
      // Subscriptions: exactly the acknowledged creates, each changed exactly as often as a change
      // of it was acknowledged (the version counts them), and the same in the billing system: one
      // billing subscription per create (none left over from an attempt the kill interrupted),
      // carrying the same quantity.
      const subRows = await rows<{
        id: string;
        quantity: number;
        version: number;
        billing_subscription_id: string | null;
        billed_quantity: number | null;
        operation_key: string | null;
      }>(
        t,
        sql`select s.id, s.quantity, s.version, s.billing_subscription_id, s.operation_key,
              b.quantity as billed_quantity
            from subscriptions s
            left join billing_subscriptions b on b.tenant_id = s.tenant_id and b.id = s.billing_subscription_id
            where s.tenant_id = ${tenant.tenantId}`,
      );
      expect(subRows.map((r) => r.id).sort()).toEqual(ids('subscription').sort());
      for (const r of subRows) {
        expect({ id: r.id, quantity: r.quantity, version: r.version }).toEqual({
          id: r.id,
          ...subs.get(r.id),
        });
        expect(r.billing_subscription_id).toMatch(/^bs_/);
        expect(r.billed_quantity).toBe(r.quantity);
        expect(r.operation_key).toBeNull();
      }
      const billingSubs = await rows<{ id: string }>(
        t,
        sql`select id from billing_subscriptions where tenant_id = ${tenant.tenantId}`,
      );
      expect(billingSubs.map((r) => r.id).sort()).toEqual(
        subRows.map((r) => r.billing_subscription_id as string).sort(),
      );

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
      expect(await events('account.created')).toBe(CLIENTS + n('account'));
      expect(await audits('account.create')).toBe(CLIENTS + n('account'));
      expect(await events('subscription.created')).toBe(n('subscription'));
      expect(await audits('subscription.create')).toBe(n('subscription'));
      expect(await events('subscription.changed')).toBe(n('subchange'));
      expect(await audits('subscription.change')).toBe(n('subchange'));
      // Every order's event is about that order.
      const orderEvents = await rows<{ rid: string }>(
        t,
        sql`select payload->>'id' as rid from events where tenant_id = ${tenant.tenantId} and type = 'order.created'`,
      );
      expect(orderEvents.map((e) => e.rid).sort()).toEqual(ids('order').sort());
      // Every subscription event and audit entry is about the subscription it was acknowledged for
      // (a change event per acknowledged change of that subscription).
      const eventSubjects = async (type: string) =>
        (
          await rows<{ rid: string }>(
            t,
            sql`select payload->>'resourceId' as rid from events where tenant_id = ${tenant.tenantId} and type = ${type}`,
          )
        )
          .map((e) => e.rid)
          .sort();
      const auditSubjects = async (action: string) =>
        (
          await rows<{ rid: string }>(
            t,
            sql`select resource_id as rid from audit_logs where tenant_id = ${tenant.tenantId} and action = ${action}`,
          )
        )
          .map((e) => e.rid)
          .sort();
      expect(await eventSubjects('subscription.created')).toEqual(ids('subscription').sort());
      expect(await auditSubjects('subscription.create')).toEqual(ids('subscription').sort());
      expect(await eventSubjects('subscription.changed')).toEqual(ids('subchange').sort());
      expect(await auditSubjects('subscription.change')).toEqual(ids('subchange').sort());
      // Every invoice the billing system issued (first periods, prorated seat charges) has exactly
      // one invoice.created event: none issued twice by a retry, none without its commit.
      const invoices = await rows<{ id: string }>(
        t,
        sql`select id from billing_invoices where tenant_id = ${tenant.tenantId}`,
      );
      expect(invoices.length).toBeGreaterThanOrEqual(n('subscription'));
      expect(await eventSubjects('invoice.created')).toEqual(invoices.map((r) => r.id).sort());

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
        `kill point ${run}: ${eventIds.length} events delivered, ${duplicates.length} more than once (resent after the crash); ` +
          `${n('subscription')} subscription creates, ${n('subchange')} quantity changes, ${invoices.length} billing invoices`,
      );
      await kill(server, 'SIGTERM');
    }, 300_000);
  }
});
