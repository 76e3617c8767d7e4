import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  createTestTenant,
  startApp,
  type TestApp,
  type TestTenant,
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

type Send = (
  method: string,
  path: string,
  key: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<Response>;

/** Requests to the child server at `port`, with a key (each times out: the server may be down). */
function sender(port: number): Send {
  const base = `http://127.0.0.1:${port}/api/v1`;
  return (method, path, key, body, headers = {}) =>
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
}

async function must(res: Promise<Response>): Promise<{ id: string; createdAt: string }> {
  const r = await res;
  if (r.status >= 300) throw new Error(`${r.status} ${await r.text()}`);
  return ((await r.json()) as { data: { id: string; createdAt: string } }).data;
}

interface World {
  tenant: TestTenant;
  productId: string;
  planId: string;
  /** Each client's account, linked to a billing account of its own. */
  owners: string[];
  /** When the webhook subscription began: every event from then on must be delivered. */
  since: Date;
}

/**
 * The tenant the load runs for: a webhook to the receiver for every event, a one-time product,
 * and (the built-in billing engine) a per-seat plan and per client an account linked to its own
 * billing account, so each subscription create is provisioned (and its first period invoiced) in
 * the billing system before the local commit, and each quantity change is charged there too: the
 * window a SIGKILL can hit between the two.
 */
async function setUpWorld(t: TestApp, send: Send, receiverUrl: string): Promise<World> {
  const tenant = await createTestTenant(t.deps);
  const hook = await must(
    send('POST', '/webhooks', tenant.keys.commerce, { url: receiverUrl, events: ['*'] }),
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
      charges: [{ name: 'Seats', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 1000 }] }],
    }),
  );
  const owners: string[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    const billing = await must(
      send('POST', '/admin/billing/accounts', tenant.keys.admin, { name: `Initech ${c}`, currency: 'USD' }),
    );
    const owner = await must(
      send('POST', '/accounts', tenant.keys.commerce, { name: `Initech ${c}`, externalId: billing.id }),
    );
    owners.push(owner.id);
  }
  return { tenant, productId: product.id, planId: plan.id, owners, since: new Date(hook.createdAt) };
}

/** What the clients saw acknowledged. */
interface Load {
  done: Done[];
  /** Each subscription's quantity and version as its client last saw them acknowledged. */
  subs: Map<string, { quantity: number; version: number }>;
  /** Every request started; resolves when all have a final answer. */
  finished: Promise<unknown>;
}

/** One logical request, retried with the same Idempotency-Key until it gets a final answer. */
async function attempt(send: Send, key: string, kind: Kind, method: string, path: string, body: unknown) {
  const idempotencyKey = randomUUID();
  for (let attempts = 1; attempts <= 400; attempts++) {
    try {
      const res = await send(method, path, key, body, { 'idempotency-key': idempotencyKey });
      const text = await res.text();
      const retry = res.status >= 500 || (res.status === 409 && text.includes('idempotency_in_flight'));
      if (!retry) {
        const id = res.status < 300 ? (JSON.parse(text).data.id as string) : undefined;
        return { kind, key: idempotencyKey, status: res.status, attempts, ...(id ? { id } : {}) };
      }
    } catch {
      // connection refused or reset: the server is down or was killed mid-request
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return { kind, key: idempotencyKey, status: 0, attempts: 400 };
}

/** CLIENTS clients, each OPS_PER_CLIENT requests of a fixed mix, one at a time. */
function startLoad(send: Send, world: World): Load {
  const key = world.tenant.keys.commerce;
  const done: Done[] = [];
  const subs = new Map<string, { quantity: number; version: number }>();
  let patchNo = 0;
  const client = async (c: number) => {
    const mine: string[] = [];
    const mySubs: string[] = [];
    for (let i = 0; i < OPS_PER_CLIENT; i++) {
      const roll = (i * 7 + c * 3) % 20;
      let d: Done;
      if (roll < 6 || mine.length === 0) {
        d = await attempt(send, key, 'order', 'POST', '/orders', {
          items: [{ productId: world.productId, quantity: 1 + (i % 3) }],
        });
        if (d.id) mine.push(d.id);
      } else if (roll < 10) {
        d = await attempt(send, key, 'patch', 'PATCH', `/orders/${mine[i % mine.length]}`, {
          status: `s-${++patchNo}`,
        });
      } else if (roll < 13) {
        d = await attempt(send, key, 'payment', 'POST', '/payments', {
          accountId: `acct_${c}`,
          amountCents: 100 + i,
          currency: 'USD',
        });
      } else if (roll < 15) {
        d = await attempt(send, key, 'account', 'POST', '/accounts', { name: `Acme ${c}-${i}` });
      } else if (roll < 17 || mySubs.length === 0) {
        const quantity = 1 + (i % 3);
        d = await attempt(send, key, 'subscription', 'POST', '/subscriptions', {
          productId: world.planId,
          quantity,
          organizationId: world.owners[c],
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
        d = await attempt(send, key, 'subchange', 'POST', `/subscriptions/${id}/change-quantity`, {
          quantity: known.quantity + 1,
          timing: 'immediate',
        });
        if (d.status >= 200 && d.status < 300)
          subs.set(id, { quantity: known.quantity + 1, version: known.version + 1 });
      }
      done.push(d);
    }
  };
  return { done, subs, finished: Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c))) };
}

/**
 * Exactly once: the rows are exactly the acknowledged ones, no duplicates; subscriptions changed
 * exactly as often as acknowledged (the version counts them), with one billing subscription per
 * create (none left over from an attempt the kill interrupted) carrying the same quantity.
 */
async function expectExactlyOnce(t: TestApp, world: World, load: Load) {
  const tenantId = world.tenant.tenantId;
  const ids = (kind: Kind) => load.done.filter((d) => d.kind === kind).map((d) => d.id as string);
  const idsOf = async (table: string) =>
    (
      await rows<{ id: string }>(
        t,
        sql`select id from ${sql.identifier(table)} where tenant_id = ${tenantId}`,
      )
    )
      .map((r) => r.id)
      .sort();
  expect(await idsOf('orders')).toEqual(ids('order').sort());
  expect(await idsOf('payment_sessions')).toEqual(ids('payment').sort());
  expect(await idsOf('organizations')).toEqual([...world.owners, ...ids('account')].sort());
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
        where s.tenant_id = ${tenantId}`,
  );
  expect(subRows.map((r) => r.id).sort()).toEqual(ids('subscription').sort());
  for (const r of subRows) {
    expect({ id: r.id, quantity: r.quantity, version: r.version }).toEqual({
      id: r.id,
      ...load.subs.get(r.id),
    });
    expect(r.billing_subscription_id).toMatch(/^bs_/);
    expect(r.billed_quantity).toBe(r.quantity);
    expect(r.operation_key).toBeNull();
  }
  expect(await idsOf('billing_subscriptions')).toEqual(
    subRows.map((r) => r.billing_subscription_id as string).sort(),
  );
}

/** Each committed change has its event and its audit entry (and only one of each), about it. */
async function expectEventsAndAudit(t: TestApp, world: World, load: Load) {
  const tenantId = world.tenant.tenantId;
  const ids = (kind: Kind) =>
    load.done
      .filter((d) => d.kind === kind)
      .map((d) => d.id as string)
      .sort();
  const n = (kind: Kind) => load.done.filter((d) => d.kind === kind).length;
  const count = async (query: ReturnType<typeof sql>) => (await rows<{ n: number }>(t, query))[0]?.n;
  const events = (type: string) =>
    count(sql`select count(*)::int as n from events where tenant_id = ${tenantId} and type = ${type}`);
  const audits = (action: string) =>
    count(
      sql`select count(*)::int as n from audit_logs where tenant_id = ${tenantId} and action = ${action}`,
    );
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
  const subjects = async (query: ReturnType<typeof sql>) =>
    (await rows<{ rid: string }>(t, query)).map((e) => e.rid).sort();
  const eventSubjects = (type: string, field: string) =>
    subjects(
      sql`select payload->>${field} as rid from events where tenant_id = ${tenantId} and type = ${type}`,
    );
  const auditSubjects = (action: string) =>
    subjects(
      sql`select resource_id as rid from audit_logs where tenant_id = ${tenantId} and action = ${action}`,
    );
  // Every order's event is about that order; every subscription event and audit entry is about
  // the subscription it was acknowledged for (a change event per acknowledged change of it).
  expect(await eventSubjects('order.created', 'id')).toEqual(ids('order'));
  expect(await eventSubjects('subscription.created', 'resourceId')).toEqual(ids('subscription'));
  expect(await auditSubjects('subscription.create')).toEqual(ids('subscription'));
  expect(await eventSubjects('subscription.changed', 'resourceId')).toEqual(ids('subchange'));
  expect(await auditSubjects('subscription.change')).toEqual(ids('subchange'));
  // Every invoice the billing system issued (first periods, prorated seat charges) has exactly
  // one invoice.created event: none issued twice by a retry, none without its commit.
  const invoices = await rows<{ id: string }>(
    t,
    sql`select id from billing_invoices where tenant_id = ${tenantId}`,
  );
  expect(invoices.length).toBeGreaterThanOrEqual(n('subscription'));
  expect(await eventSubjects('invoice.created', 'resourceId')).toEqual(invoices.map((r) => r.id).sort());
  return invoices.length;
}

/**
 * Every event since the subscription reaches the receiver at least once (a delivery leased by the
 * killed process is sent again when its lease, 60 s, runs out), and no delivery is left leased or
 * unfinished. Returns the events and how many arrived more than once.
 */
async function expectEveryEventDelivered(t: TestApp, world: World, receiver: Receiver) {
  const tenantId = world.tenant.tenantId;
  const eventIds = (
    await rows<{ id: string }>(
      t,
      sql`select id from events where tenant_id = ${tenantId} and occurred_at >= ${world.since.toISOString()}`,
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
  let unfinished: unknown[] = [];
  for (let i = 0; i < 400; i++) {
    unfinished = await rows(
      t,
      sql`select event_id, status, lease_token from webhook_deliveries
          where tenant_id = ${tenantId} and (status <> 'succeeded' or lease_token is not null)`,
    );
    if (unfinished.length === 0) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(unfinished).toEqual([]);
  const duplicates = [...receiver.countsById().entries()].filter(([id, c]) => eventIds.includes(id) && c > 1);
  return { events: eventIds.length, duplicates: duplicates.length };
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
      const send = sender(port);
      const world = await setUpWorld(t, send, receiver.url);
      const loadStarted = Date.now();
      const load = startLoad(send, world);
      // The kill point: a random moment while the load runs. Picked by progress (after a random
      // 5-90% of the requests were answered), not by time: on a fast machine the whole load takes
      // less than two seconds, and a kill by the clock would often come after it.
      const total = CLIENTS * OPS_PER_CLIENT;
      const killAt = Math.floor(total * (0.05 + Math.random() * 0.85));
      while (load.done.length < killAt) await new Promise((r) => setTimeout(r, 2));
      const killAfter = Date.now() - loadStarted;
      const before = load.done.length;
      await kill(server, 'SIGKILL');
      server = spawnChild(port, childEnv());
      await waitReady(server);
      await load.finished;
      console.log(
        `kill point ${run}: SIGKILL after ${killAfter} ms with ${before}/${total} requests answered; ` +
          `max attempts of one request ${Math.max(...load.done.map((d) => d.attempts))}`,
      );

      // Every request got a final 2xx (none lost, none stuck "in flight").
      expect(load.done.filter((d) => d.status < 200 || d.status >= 300)).toEqual([]);
      await expectExactlyOnce(t, world, load);
      const invoices = await expectEventsAndAudit(t, world, load);
      const delivered = await expectEveryEventDelivered(t, world, receiver);
      const n = (kind: Kind) => load.done.filter((d) => d.kind === kind).length;
      console.log(
        `kill point ${run}: ${delivered.events} events delivered, ${delivered.duplicates} more than once (resent after the crash); ` +
          `${n('subscription')} subscription creates, ${n('subchange')} quantity changes, ${invoices} billing invoices`,
      );
      await kill(server, 'SIGTERM');
    }, 300_000);
  }
});
