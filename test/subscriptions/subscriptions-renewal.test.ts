import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { FaultController, withFaults } from '../../src/billing/index.js';
import { ManualClock } from '../../src/clock.js';
import { events } from '../../src/events/tables.js';
import { paymentSessions } from '../../src/modules/payments/tables.js';
import { runDueSubscriptionWork } from '../../src/modules/subscriptions/index.js';
import { subscriptions } from '../../src/modules/subscriptions/tables.js';
import { reconcileIntents } from '../../src/unit-of-work/index.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { linkedBillingAccount } from '../support/billing-fixtures.js';
import { adminPost, perSeat } from '../support/catalog-fixtures.js';

// Early renewal: POST /subscriptions/{id}/renew before the period ends bills the next period now;
// at the period end the subscription moves into it without a second invoice.

const START = new Date('2024-01-15T10:00:00.000Z');
const FEB_15 = '2024-02-15T10:00:00.000Z';
const MAR_15 = '2024-03-15T10:00:00.000Z';
const APR_15 = '2024-04-15T10:00:00.000Z';

interface Action {
  rel: string;
}

let t: TestApp;
const clock = new ManualClock(START);
const faults = new FaultController();
let shop: TestTenant;
let other: TestTenant;
let org: { id: string };
let billingId: string;
let starter: { id: string };

beforeAll(async () => {
  t = await startApp({ clock, wrapBilling: (a) => withFaults(a, faults) });
  other = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());
// A tenant of its own per test: the scheduler's runs (limited to it) see only that test's work.
beforeEach(async () => {
  clock.set(START);
  faults.reset();
  shop = await createTestTenant(t.deps);
  ({ billingId, account: org } = await linkedBillingAccount(t, shop, 'Initech'));
  starter = await adminPost(t, shop, 'products', perSeat('Starter', 1000, { entitlements: { seats: 5 } }));
});

const post = (url: string, key = shop.keys.commerce, headers: Record<string, string> = {}, payload = {}) =>
  api(t, key).post(url, payload, { headers });
const get = (url: string, key = shop.keys.read) => api(t, key).get(url);
const renew = (id: string, headers: Record<string, string> = {}) =>
  post(`/subscriptions/${id}/renew`, shop.keys.commerce, headers);
const create = async (payload: object = {}) => {
  const res = await post(
    '/subscriptions',
    shop.keys.commerce,
    {},
    {
      productId: starter.id,
      quantity: 1,
      organizationId: org.id,
      ...payload,
    },
  );
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; billingSubscriptionId: string | null };
};
const read = async (id: string) => (await get(`/subscriptions/${id}`)).json();
const rels = (body: { nextActions: Action[] }) => body.nextActions.map((a) => a.rel);
/** The billing system's invoices of the subscription (through the API). */
const invoicesOf = async (sub: { billingSubscriptionId: string | null }) =>
  (
    (await get(`/accounts/${billingId}/invoices`)).json().data as {
      id: string;
      amountCents: number;
      subscriptionId: string | null;
      lines: { description: string }[];
    }[]
  ).filter((i) => i.subscriptionId === sub.billingSubscriptionId);
const billingPeriodOf = async (sub: { billingSubscriptionId: string | null }) => {
  const listed = (await get(`/accounts/${billingId}/subscriptions`)).json().data as {
    id: string;
    currentPeriodStart: string;
    currentPeriodEnd: string;
  }[];
  const found = listed.find((s) => s.id === sub.billingSubscriptionId);
  return { start: found?.currentPeriodStart, end: found?.currentPeriodEnd };
};
const eventTypes = async (resourceId: string) =>
  (
    await t.deps.db
      .select()
      .from(events)
      .where(eq(events.tenantId, shop.tenantId))
      .orderBy(events.occurredAt, events.id)
  )
    .filter((e) => {
      const p = e.payload as { resourceId?: string; subscriptionId?: string; invoiceId?: string };
      return p.resourceId === resourceId || p.subscriptionId === resourceId;
    })
    .map((e) => e.type);
const sessionsOf = async (invoiceId: string) =>
  (
    await t.deps.db
      .select({ n: count() })
      .from(paymentSessions)
      .where(and(eq(paymentSessions.tenantId, shop.tenantId), eq(paymentSessions.invoiceId, invoiceId)))
  )[0]?.n;
const allSessions = async () =>
  (
    await t.deps.db
      .select({ n: count() })
      .from(paymentSessions)
      .where(eq(paymentSessions.tenantId, shop.tenantId))
  )[0]?.n;
const billedThrough = async (id: string) =>
  (
    await t.deps.db
      .select({ at: subscriptions.billedThrough })
      .from(subscriptions)
      .where(and(eq(subscriptions.tenantId, shop.tenantId), eq(subscriptions.id, id)))
  )[0]?.at?.toISOString() ?? null;
const auditOf = async (id: string) =>
  (await get(`/audit-logs?resourceId=${id}&action=subscription.renew`, shop.keys.admin)).json().data as {
    details: Record<string, unknown>;
  }[];
const runScheduler = () => runDueSubscriptionWork(t.deps, { tenantId: shop.tenantId });
const previewPlanChange = (subscriptionId: string, targetProductId: string) =>
  post('/preview/plan-change', shop.keys.read, {}, { subscriptionId, targetProductId });
/** Change-plan at exactly the figures of `preview` (its previewId). */
const changePlanAsPreviewed = (
  subscriptionId: string,
  targetProductId: string,
  preview: Awaited<ReturnType<typeof post>>,
) =>
  post(
    `/subscriptions/${subscriptionId}/change-plan`,
    shop.keys.commerce,
    {},
    {
      targetProductId,
      previewId: preview.json().data.previewId,
    },
  );

describe('subscription renewal, early and due', () => {
  it('early: bills the next period now (invoice, session); the scheduler moves into it without a second invoice', async () => {
    const sub = await create();
    clock.set(new Date('2024-02-01T00:00:00Z'));
    expect(rels(await read(sub.id))).toContain('renew');

    const key = { 'idempotency-key': `early-${sub.id}` };
    const res = await renew(sub.id, key);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.data).toMatchObject({
      id: sub.id,
      status: 'active',
      currentPeriodStart: START.toISOString(),
      currentPeriodEnd: FEB_15,
      version: 2,
      renewal: 'early',
      renewedPeriod: { start: FEB_15, end: MAR_15 },
      invoiceId: expect.stringMatching(/^in_/),
      paymentSessionId: expect.any(String),
    });
    expect(rels(body)).toContain('payInvoice');
    expect(rels(body)).not.toContain('renew');
    expect(await billedThrough(sub.id)).toBe(MAR_15);

    // The invoice bills the next period, through the billing system, named by its subscription.
    const invoices = await invoicesOf(sub);
    expect(invoices).toHaveLength(2); // first period, and the one billed early
    const early = invoices.find((i) => i.id === body.data.invoiceId);
    expect(early).toMatchObject({ amountCents: 1000, subscriptionId: sub.billingSubscriptionId });
    expect(early?.lines[0]?.description).toContain('2024-02-15 to 2024-03-15');
    const session = (await get(`/payments/${body.data.paymentSessionId}`)).json().data;
    expect(session).toMatchObject({
      accountId: billingId,
      amountCents: 1000,
      currency: 'USD',
      invoiceId: body.data.invoiceId,
      status: 'pending',
    });
    // The billing subscription's period moves only when the billed period starts.
    expect(await billingPeriodOf(sub)).toEqual({ start: START.toISOString(), end: FEB_15 });
    expect(await eventTypes(sub.id)).toEqual(['subscription.created', 'invoice.created', 'invoice.created']);
    expect((await auditOf(sub.id))[0]?.details).toMatchObject({
      renewal: 'early',
      billedPeriodStart: FEB_15,
      billedPeriodEnd: MAR_15,
      priceCents: 1000,
      invoiceId: body.data.invoiceId,
      paymentSessionId: body.data.paymentSessionId,
    });

    // The same Idempotency-Key: the same answer, nothing billed again.
    const replay = await renew(sub.id, key);
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(replay.json()).toEqual(body);
    expect(await invoicesOf(sub)).toHaveLength(2);

    // Billed ahead already: a second renewal is not due, and renew is not offered.
    const second = await renew(sub.id);
    expect(second.statusCode).toBe(409);
    expect(errorBody(second)).toMatchObject({
      code: 'subscription_not_due',
      nextActions: [{ rel: 'self', method: 'GET', href: `/api/v1/subscriptions/${sub.id}` }],
    });
    expect(errorBody(second).error).toContain(`next period (${FEB_15} to ${MAR_15}) is already billed`);
    expect(rels(await read(sub.id))).not.toContain('renew');

    // Not due yet: the scheduler leaves it.
    clock.set(new Date('2024-02-15T09:59:59Z'));
    expect((await runScheduler()).renewed).toBe(0);

    // The period ends: into the billed period, no second invoice, no second session.
    clock.set(new Date(FEB_15));
    const sessionsBefore = await allSessions();
    const run = await runScheduler();
    expect(run).toMatchObject({ renewed: 1, failed: [] });
    const moved = await read(sub.id);
    expect(moved.data).toMatchObject({
      status: 'active',
      currentPeriodStart: FEB_15,
      currentPeriodEnd: MAR_15,
      priceCents: 1000,
      version: 3,
    });
    expect(await invoicesOf(sub)).toHaveLength(2);
    expect(await allSessions()).toBe(sessionsBefore);
    expect(await sessionsOf(body.data.invoiceId)).toBe(1);
    expect(await billingPeriodOf(sub)).toEqual({ start: FEB_15, end: MAR_15 });
    const types = await eventTypes(sub.id);
    expect(types.filter((e) => e === 'subscription.renewed')).toHaveLength(1);
    expect(types.at(-1)).toBe('subscription.renewed');
    expect(types.filter((e) => e === 'invoice.created')).toHaveLength(2);
    expect((await auditOf(sub.id)).map((a) => a.details)).toContainEqual(
      expect.objectContaining({
        renewal: 'prebilled',
        currentPeriodStart: FEB_15,
        currentPeriodEnd: MAR_15,
        invoiceId: null,
        paymentSessionId: null,
      }),
    );
    // Run again: nothing more to do.
    expect((await runScheduler()).renewed).toBe(0);

    // In the billed period, renew is offered again and bills the period after.
    expect(rels(moved)).toContain('renew');
    clock.set(new Date('2024-02-20T00:00:00Z'));
    const next = await renew(sub.id);
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json().data).toMatchObject({
      renewal: 'early',
      renewedPeriod: { start: MAR_15, end: APR_15 },
      currentPeriodEnd: MAR_15,
    });
    expect(await invoicesOf(sub)).toHaveLength(3);
    clock.set(new Date(MAR_15));
    expect(await runScheduler()).toMatchObject({ renewed: 1, failed: [] });
    expect((await read(sub.id)).data).toMatchObject({ currentPeriodStart: MAR_15, currentPeriodEnd: APR_15 });
    expect(await invoicesOf(sub)).toHaveLength(3);
  });

  it('due: renews as before (invoice, session); due with the next period billed, moves without billing', async () => {
    const sub = await create();
    clock.set(new Date(FEB_15));
    const res = await renew(sub.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      renewal: 'due',
      renewedPeriod: { start: FEB_15, end: MAR_15 },
      currentPeriodStart: FEB_15,
      currentPeriodEnd: MAR_15,
      invoiceId: expect.stringMatching(/^in_/),
      paymentSessionId: expect.any(String),
      version: 2,
    });
    expect(await invoicesOf(sub)).toHaveLength(2);
    expect(await billingPeriodOf(sub)).toEqual({ start: FEB_15, end: MAR_15 });
    expect(await billedThrough(sub.id)).toBeNull();
    expect((await runScheduler()).renewed).toBe(0);

    // Billed early, then the period ends before the scheduler ran: renew moves it, billing nothing.
    clock.set(new Date('2024-03-01T00:00:00Z'));
    expect((await renew(sub.id)).json().data.renewal).toBe('early');
    clock.set(new Date('2024-03-16T00:00:00Z'));
    const sessions = await allSessions();
    const moved = await renew(sub.id);
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data).toMatchObject({
      renewal: 'prebilled',
      renewedPeriod: { start: MAR_15, end: APR_15 },
      currentPeriodStart: MAR_15,
      currentPeriodEnd: APR_15,
      invoiceId: null,
      paymentSessionId: null,
    });
    expect(await invoicesOf(sub)).toHaveLength(3);
    expect(await allSessions()).toBe(sessions);
    expect(await billingPeriodOf(sub)).toEqual({ start: MAR_15, end: APR_15 });
    expect((await runScheduler()).renewed).toBe(0);
  });
});

describe('subscription renewal: refusals, and changes after an early renewal', () => {
  it('refusals: a pending change or a billed next period is not due; pending cancellation, cancelled, other tenants, read keys', async () => {
    const sub = await create({ quantity: 3 });
    clock.set(new Date('2024-02-01T00:00:00Z'));
    // Fewer seats apply at the period end (default downgrade rule): pending_change.
    const down = await post(
      `/subscriptions/${sub.id}/change-quantity`,
      shop.keys.commerce,
      {},
      { quantity: 2 },
    );
    expect(down.json().data.status).toBe('pending_change');
    expect(rels(down.json())).not.toContain('renew');
    const pending = await renew(sub.id);
    expect(pending.statusCode).toBe(409);
    expect(errorBody(pending).code).toBe('subscription_not_due');
    expect(errorBody(pending).error).toContain('change is pending');
    expect(await invoicesOf(sub)).toHaveLength(1);

    const plain = await create();
    expect((await post(`/subscriptions/${plain.id}/renew`, other.keys.commerce)).statusCode).toBe(404);
    expect((await post(`/subscriptions/${plain.id}/renew`, shop.keys.read)).statusCode).toBe(403);
    expect((await post('/subscriptions/not-a-uuid/renew')).statusCode).toBe(400);
    const ending = await post(
      `/subscriptions/${plain.id}/cancel`,
      shop.keys.commerce,
      {},
      { timing: 'end_of_period' },
    );
    expect(ending.json().data.status).toBe('pending_cancellation');
    expect(rels(ending.json())).not.toContain('renew');
    const refused = await renew(plain.id);
    expect(refused.statusCode).toBe(409);
    expect(errorBody(refused).code).toBe('conflict');
    await post(`/subscriptions/${plain.id}/cancel`, shop.keys.commerce, {}, { timing: 'immediate' });
    expect(errorBody(await renew(plain.id)).code).toBe('conflict');
    expect(await invoicesOf(plain)).toHaveLength(1);
    expect(await billedThrough(plain.id)).toBeNull();
  });

  it('a change for the period end after an early renewal applies when the billed period ends', async () => {
    const sub = await create({ quantity: 3 });
    clock.set(new Date('2024-02-01T00:00:00Z'));
    expect((await renew(sub.id)).json().data).toMatchObject({
      renewal: 'early',
      invoiceId: expect.any(String),
    });
    const down = await post(
      `/subscriptions/${sub.id}/change-quantity`,
      shop.keys.commerce,
      {},
      { quantity: 2 },
    );
    // The period billed early (at 3 seats) keeps its plan: the change waits for its end.
    expect(down.json().data).toMatchObject({
      status: 'pending_change',
      pendingChange: { quantity: 2, priceCents: 2000, effectiveAt: MAR_15 },
    });
    clock.set(new Date(FEB_15));
    expect(await runScheduler()).toMatchObject({ renewed: 1, failed: [] });
    expect((await read(sub.id)).data).toMatchObject({
      quantity: 3,
      priceCents: 3000,
      status: 'pending_change',
      pendingChange: { quantity: 2, effectiveAt: MAR_15 },
      currentPeriodStart: FEB_15,
      currentPeriodEnd: MAR_15,
    });
    expect(await invoicesOf(sub)).toHaveLength(2);
    // At its end the change applies and the next period is invoiced at the new price.
    clock.set(new Date(MAR_15));
    expect(await runScheduler()).toMatchObject({ renewed: 1, failed: [] });
    expect((await read(sub.id)).data).toMatchObject({
      quantity: 2,
      priceCents: 2000,
      status: 'active',
      pendingChange: null,
      currentPeriodStart: MAR_15,
      currentPeriodEnd: APR_15,
    });
    const invoices = await invoicesOf(sub);
    expect(invoices).toHaveLength(3);
    expect(invoices[0]?.amountCents).toBe(2000);
  });

  it('an immediate change after an early renewal bills the difference for the billed period too, as previewed', async () => {
    const basic = await adminPost(t, shop, 'products', perSeat('Basic', 1000, { family: 'ahead', rank: 0 }));
    const pro = await adminPost(t, shop, 'products', perSeat('Pro', 2000, { family: 'ahead', rank: 1 }));
    const sub = await create({ productId: basic.id, quantity: 3 });
    clock.set(new Date('2024-02-01T00:00:00Z'));
    expect((await renew(sub.id)).json().data).toMatchObject({ renewal: 'early' });
    const preview = await previewPlanChange(sub.id, pro.id);
    expect(preview.statusCode, preview.body).toBe(200);
    // 14 of the period's 31 days are left: 3000 * 14/31 = 1355 and 6000 * 14/31 = 2710 (half up),
    // plus the billed period whole: 3000 given back, 6000 charged.
    expect(preview.json().data.financialImpact).toMatchObject({
      creditCents: 1355 + 3000,
      chargeCents: 2710 + 6000,
      netCents: 8710 - 4355,
    });
    const changed = await changePlanAsPreviewed(sub.id, pro.id, preview);
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({ productId: pro.id, priceCents: 6000, status: 'active' });
    const invoices = await invoicesOf(sub);
    expect(invoices.map((i) => i.amountCents)).toEqual([4355, 3000, 3000]);
    // At the period end it moves into the billed period on the new plan, invoicing nothing.
    clock.set(new Date(FEB_15));
    expect(await runScheduler()).toMatchObject({ renewed: 1, failed: [] });
    expect((await read(sub.id)).data).toMatchObject({
      productId: pro.id,
      priceCents: 6000,
      currentPeriodStart: FEB_15,
      currentPeriodEnd: MAR_15,
    });
    expect(await invoicesOf(sub)).toHaveLength(3);
    clock.set(new Date(MAR_15));
    await runScheduler();
    expect((await invoicesOf(sub))[0]?.amountCents).toBe(6000);
  });

  it('a switch to another interval after an early renewal credits the billed period whole and replaces it', async () => {
    const monthly = await adminPost(t, shop, 'products', perSeat('Monthly', 1000, { family: 'iv', rank: 0 }));
    const annual = await adminPost(
      t,
      shop,
      'products',
      perSeat('Annual', 12_000, { family: 'iv', rank: 1, billingInterval: 'year' }),
    );
    const sub = await create({ productId: monthly.id });
    clock.set(new Date('2024-02-01T00:00:00Z'));
    expect((await renew(sub.id)).json().data).toMatchObject({ renewal: 'early' });
    const preview = await previewPlanChange(sub.id, annual.id);
    // 1000 * 14/31 = 452 (half up) of the current period, and the billed period whole.
    expect(preview.json().data.financialImpact).toMatchObject({
      creditCents: 452 + 1000,
      chargeCents: 12_000,
    });
    const changed = await changePlanAsPreviewed(sub.id, annual.id, preview);
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({
      billingInterval: 'year',
      currentPeriodStart: '2024-02-01T00:00:00.000Z',
      currentPeriodEnd: '2025-02-01T00:00:00.000Z',
    });
    expect(await billedThrough(sub.id)).toBeNull();
    expect(rels(await read(sub.id))).toContain('renew');
  });
});

describe('subscription renewal: without billing, outages and the reconciler', () => {
  it('a subscription kept only here: early renewal opens a session for the price, the period end opens none', async () => {
    const res = await post(
      '/subscriptions',
      shop.keys.commerce,
      {},
      {
        productId: starter.id,
        contactId: '01900000-0000-7000-8000-0000000000c7',
      },
    );
    const sub = res.json().data;
    expect(sub.billingSubscriptionId).toBeNull();
    clock.set(new Date('2024-02-10T00:00:00Z'));
    const early = await renew(sub.id);
    expect(early.statusCode, early.body).toBe(200);
    expect(early.json().data).toMatchObject({
      renewal: 'early',
      renewedPeriod: { start: FEB_15, end: MAR_15 },
      invoiceId: null,
      paymentSessionId: expect.any(String),
    });
    const session = (await get(`/payments/${early.json().data.paymentSessionId}`)).json().data;
    expect(session).toMatchObject({ amountCents: 1000, invoiceId: null });
    expect((await renew(sub.id)).statusCode).toBe(409);
    clock.set(new Date(FEB_15));
    const sessions = await allSessions();
    expect(await runScheduler()).toMatchObject({ renewed: 1, failed: [] });
    expect(await allSessions()).toBe(sessions);
    expect((await read(sub.id)).data).toMatchObject({ currentPeriodStart: FEB_15, currentPeriodEnd: MAR_15 });
  });

  it('a billing outage during an early renewal leaves nothing half-done; the same key completes it once', async () => {
    const sub = await create();
    clock.set(new Date('2024-02-01T00:00:00Z'));
    const key = { 'idempotency-key': `outage-${sub.id}` };
    const sessions = await allSessions();

    // An outage that sent nothing: 502, the intent closed, the claim given back.
    faults.only = ['createInvoice'];
    faults.failNext = 1;
    const down = await renew(sub.id, key);
    expect(down.statusCode).toBe(502);
    expect((await read(sub.id)).data.version).toBe(1);
    expect(await billedThrough(sub.id)).toBeNull();
    expect(await invoicesOf(sub)).toHaveLength(1);
    expect(await allSessions()).toBe(sessions);
    expect(await auditOf(sub.id)).toHaveLength(0);

    // The invoice issued but its answer lost: 502; still nothing recorded here, the claim held.
    faults.only = ['createInvoice'];
    faults.applyThenFailNext = 1;
    const lost = await renew(sub.id, key);
    faults.reset();
    expect(lost.statusCode).toBe(502);
    expect(await invoicesOf(sub)).toHaveLength(2);
    expect(await billedThrough(sub.id)).toBeNull();
    expect(await allSessions()).toBe(sessions);
    const blocked = await renew(sub.id);
    expect(blocked.statusCode).toBe(409);
    expect(errorBody(blocked).code).toBe('conflict');

    // The retry finishes it with the invoice already issued: one invoice, one session.
    const retried = await renew(sub.id, key);
    expect(retried.statusCode, retried.body).toBe(200);
    const invoices = await invoicesOf(sub);
    expect(invoices).toHaveLength(2);
    expect(retried.json().data).toMatchObject({
      renewal: 'early',
      renewedPeriod: { start: FEB_15, end: MAR_15 },
      invoiceId: invoices.find((i) => i.lines[0]?.description.includes('2024-02-15 to'))?.id,
      version: 2,
    });
    expect(await allSessions()).toBe((sessions ?? 0) + 1);
    expect(await billedThrough(sub.id)).toBe(MAR_15);
    const replay = await renew(sub.id, key);
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(replay.body).toBe(retried.body);
    const intents = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/admin/intents?operation=subscriptions.renew',
        headers: bearer(shop.keys.admin),
      })
    ).json().data as { subject: { id: string }; status: string; runs: number; effects: unknown[] }[];
    // One operation (the same key): failed, taken up again, left pending, finished by the retry.
    expect(intents).toMatchObject([
      {
        subject: { id: sub.id },
        status: 'completed',
        runs: 3,
        effects: [{ step: 'invoice', outcome: 'applied' }],
      },
    ]);
  });

  it('an early renewal whose answer was lost is finished by the reconciler; the period end bills nothing', async () => {
    const sub = await create();
    clock.set(new Date('2024-02-01T00:00:00Z'));
    faults.only = ['createInvoice'];
    faults.applyThenFailNext = 1;
    expect((await renew(sub.id)).statusCode).toBe(502);
    faults.reset();
    clock.advance(60_000);
    const report = await reconcileIntents(t.deps, { tenantId: shop.tenantId });
    expect(report).toMatchObject({ completed: 1 });
    expect(await billedThrough(sub.id)).toBe(MAR_15);
    expect((await read(sub.id)).data).toMatchObject({ version: 2, currentPeriodEnd: FEB_15 });
    const audit = (await auditOf(sub.id))[0]?.details;
    expect(audit).toMatchObject({ renewal: 'early', invoiceId: expect.stringMatching(/^in_/) });
    expect(await sessionsOf(audit?.invoiceId as string)).toBe(1);
    expect(await invoicesOf(sub)).toHaveLength(2);

    // The scheduler's move fails once after the billing engine moved; the next run finishes it.
    clock.set(new Date(FEB_15));
    faults.only = ['renewSubscription'];
    faults.applyThenFailNext = 1;
    const failed = await runScheduler();
    faults.reset();
    expect(failed.failed.map((f) => f.subscriptionId)).toEqual([sub.id]);
    expect((await read(sub.id)).data.currentPeriodEnd).toBe(FEB_15);
    expect(await runScheduler()).toMatchObject({ renewed: 1, failed: [] });
    expect((await read(sub.id)).data).toMatchObject({ currentPeriodStart: FEB_15, currentPeriodEnd: MAR_15 });
    expect(await billingPeriodOf(sub)).toEqual({ start: FEB_15, end: MAR_15 });
    expect(await invoicesOf(sub)).toHaveLength(2);
    expect((await eventTypes(sub.id)).filter((e) => e === 'subscription.renewed')).toHaveLength(1);
  });

  it('the built-in engine: renewSubscription with invoice false moves the period and keeps the credit', async () => {
    const tenant = await createTestTenant(t.deps);
    const engine = new BuiltinBilling(t.deps.db, clock, tenant.tenantId);
    const account = await engine.createAccount({ name: 'Acme', currency: 'USD' });
    const provisioned = await engine.provisionSubscription({
      accountId: account.id,
      productId: starter.id,
      productName: 'Starter',
      quantity: 1,
      priceCents: 1000,
      currency: 'USD',
      billingInterval: 'month',
      currentPeriodStart: START.toISOString(),
      currentPeriodEnd: FEB_15,
      invoiceFirstPeriod: false,
      idempotencyKey: 'prov-1',
    });
    if (!provisioned.ok) throw new Error(provisioned.failure.message);
    const id = provisioned.value.subscription.id;
    await engine.changeSubscription({ subscriptionId: id, creditCents: 300, idempotencyKey: 'credit-1' });
    const moved = await engine.renewSubscription({
      subscriptionId: id,
      currentPeriodStart: FEB_15,
      currentPeriodEnd: MAR_15,
      invoice: false,
      idempotencyKey: 'move-1',
    });
    expect(moved.ok && moved.value).toMatchObject({
      invoice: null,
      subscription: { currentPeriodStart: FEB_15, currentPeriodEnd: MAR_15 },
    });
    const invoiced = await engine.renewSubscription({
      subscriptionId: id,
      currentPeriodStart: MAR_15,
      currentPeriodEnd: APR_15,
      idempotencyKey: 'renew-1',
    });
    expect(invoiced.ok && invoiced.value.invoice?.amountCents).toBe(700);
  });
});
