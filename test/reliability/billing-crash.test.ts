import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingInvoices, billingPayments, billingSubscriptions } from '../../src/billing/builtin/tables.js';
import { subscriptions } from '../../src/modules/subscriptions/tables.js';
import { intents } from '../../src/unit-of-work/index.js';
import {
  createScratchDatabase,
  createTestTenant,
  startApp,
  type TestApp,
  type TestTenant,
  usingPostgres,
} from '../harness.js';
import { adminPost, perSeat } from '../support/catalog-fixtures.js';
import { type Child, freePort, killAll, spawnChild, waitReady } from './support/child-server.js';

// A server process SIGKILLed between a billing call that took effect and the local commit that
// records it (test/reliability/support/kill-server.ts). After a restart, the reconciler (running
// in the server) converges: a creation nobody was told of is undone, a change of an existing
// subscription or a settlement is finished; no orphan, no duplicate, and the intent says which.

const LEASE_MS = 500;

describe.skipIf(!usingPostgres)('killed between the billing call and the commit (PostgreSQL)', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let t: TestApp;
  let tenant: TestTenant;
  let billingId: string;
  let orgId: string;
  let plan: { id: string };
  const secret = randomBytes(32).toString('hex');

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    t = await startApp({ database: scratch.database });
    tenant = await createTestTenant(t.deps);
    const admin = { authorization: `Bearer ${tenant.keys.admin}` };
    await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/billing-integration',
      headers: admin,
      payload: { adapter: 'builtin' },
    });
    billingId = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/admin/billing/accounts',
        headers: admin,
        payload: { name: 'Acme', currency: 'USD' },
      })
    ).json().data.id;
    orgId = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/accounts',
        headers: { authorization: `Bearer ${tenant.keys.commerce}` },
        payload: { name: 'Acme', externalId: billingId },
      })
    ).json().data.id;
    plan = await adminPost(t, tenant, 'products', perSeat('Seats', 1200));
  });
  afterAll(async () => {
    await killAll();
    await t?.app.close();
    await scratch?.drop();
  });

  const start = async (killAfter?: string): Promise<Child> => {
    const child = spawnChild(
      await freePort(),
      {
        DATABASE_URL: scratch.url,
        WEBHOOK_SECRET_KEY: secret,
        INTENT_LEASE_MS: String(LEASE_MS),
        RECONCILER_INTERVAL_MS: '200',
        ...(killAfter ? { KILL_AFTER: killAfter } : {}),
      },
      'test/reliability/support/kill-server.ts',
    );
    await waitReady(child);
    return child;
  };

  const post = (child: Child, path: string, body: object, key: string = randomUUID()) =>
    fetch(`http://127.0.0.1:${child.port}/api/v1${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tenant.keys.commerce}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });

  /** Sends `path` to a server killed by it; the request dies with the process. */
  async function killedBy(killAfter: string, path: string, body: object, key: string) {
    const child = await start(killAfter);
    await expect(post(child, path, body, key)).rejects.toThrow();
    expect(await child.exited).toMatchObject({ signal: 'SIGKILL' });
  }

  /** The tenant's intents of `operation`, once none is pending (the restarted server reconciled them). */
  async function settledIntents(operation: string) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const rows = await t.deps.db
        .select()
        .from(intents)
        .where(and(eq(intents.tenantId, tenant.tenantId), eq(intents.operation, operation)));
      if (rows.length > 0 && rows.every((r) => r.status !== 'pending')) return rows;
      if (Date.now() > deadline)
        throw new Error(`intents of ${operation} still pending: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const billingSubs = () =>
    t.deps.db.select().from(billingSubscriptions).where(eq(billingSubscriptions.tenantId, tenant.tenantId));
  const localSubs = () =>
    t.deps.db.select().from(subscriptions).where(eq(subscriptions.tenantId, tenant.tenantId));

  it('a subscription provisioned, then the kill: undone after restart; the retry provisions once', async () => {
    const key = randomUUID();
    const body = { productId: plan.id, quantity: 2, organizationId: orgId };
    await killedBy('provisionSubscription', '/subscriptions', body, key);
    // The kill point: provisioned and invoiced there, nothing here.
    expect((await billingSubs()).filter((s) => s.status === 'active')).toHaveLength(1);
    expect(await localSubs()).toHaveLength(0);

    const child = await start();
    const [intent] = await settledIntents('subscriptions.create');
    expect(intent).toMatchObject({ status: 'compensated', resolvedBy: 'reconciler' });
    expect((await billingSubs()).map((s) => s.status)).toEqual(['cancelled']);
    const invoices = await t.deps.db
      .select()
      .from(billingInvoices)
      .where(eq(billingInvoices.tenantId, tenant.tenantId));
    expect(invoices.map((i) => i.status)).toEqual(['void']);

    // The client's retry (same key, same body) is the same operation, taken up again: one new subscription.
    const retried = await post(child, '/subscriptions', body, key);
    expect(retried.status).toBe(201);
    const live = (await billingSubs()).filter((s) => s.status === 'active');
    expect(live).toHaveLength(1);
    expect(await localSubs()).toMatchObject([
      { billingSubscriptionId: live[0]?.id, quantity: 2, status: 'active' },
    ]);
    await child.child.kill('SIGTERM');
    await child.exited;
  });

  it('a quantity change made in billing, then the kill: finished after restart, once', async () => {
    const [sub] = await localSubs();
    if (!sub) throw new Error('no subscription');
    await killedBy(
      'changeSubscription',
      `/subscriptions/${sub.id}/change-quantity`,
      { quantity: 5, timing: 'immediate' },
      randomUUID(),
    );
    expect((await billingSubs()).find((b) => b.id === sub.billingSubscriptionId)?.quantity).toBe(5);
    expect((await localSubs())[0]?.quantity).toBe(2);

    const child = await start();
    const [intent] = await settledIntents('subscriptions.change');
    expect(intent).toMatchObject({ status: 'completed', resolvedBy: 'reconciler' });
    const [after] = await localSubs();
    expect(after).toMatchObject({ quantity: 5, version: sub.version + 1, operationKey: null });
    expect((await billingSubs()).find((b) => b.id === sub.billingSubscriptionId)).toMatchObject({
      quantity: 5,
      priceCents: after?.priceCents,
    });
    // One prorated invoice for the change, not two.
    const changeInvoices = (
      await t.deps.db.select().from(billingInvoices).where(eq(billingInvoices.tenantId, tenant.tenantId))
    ).filter(
      (i) => i.subscriptionId === sub.billingSubscriptionId && i.status === 'open' && i.amountCents !== 2400,
    );
    expect(changeInvoices.length).toBeLessThanOrEqual(1);
    await child.child.kill('SIGTERM');
    await child.exited;
  });

  it('a settlement made in billing, then the kill: the session succeeds after restart, paid once', async () => {
    const invoice = (
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/billing/accounts/${billingId}/invoices`,
        headers: { authorization: `Bearer ${tenant.keys.admin}` },
        payload: { lines: [{ description: 'x', unitAmountCents: 3300 }] },
      })
    ).json().data;
    const session = (
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/invoices/${invoice.id}/pay`,
        headers: { authorization: `Bearer ${tenant.keys.commerce}` },
        payload: { accountId: billingId, amountCents: 3300, currency: 'USD' },
      })
    ).json().data;
    await killedBy('settleInvoice', `/payments/${session.id}/complete`, {}, randomUUID());

    const child = await start();
    const settled = await settledIntents('payments.settle');
    expect(settled.at(-1)).toMatchObject({ status: 'completed', resolvedBy: 'reconciler' });
    const read = await t.app.inject({
      method: 'GET',
      url: `/api/v1/payments/${session.id}`,
      headers: { authorization: `Bearer ${tenant.keys.read}` },
    });
    expect(read.json().data.status).toBe('success');
    const payments = await t.deps.db
      .select()
      .from(billingPayments)
      .where(and(eq(billingPayments.tenantId, tenant.tenantId), eq(billingPayments.invoiceId, invoice.id)));
    expect(payments.map((p) => Number(p.amountCents))).toEqual([3300]);
    await child.child.kill('SIGTERM');
    await child.exited;
  });
});
