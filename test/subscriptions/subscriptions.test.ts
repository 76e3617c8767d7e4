import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FaultController, withFaults } from '../../src/billing/index.js';
import { ManualClock } from '../../src/clock.js';
import { events } from '../../src/events/tables.js';
import { paymentSessions } from '../../src/modules/payments/tables.js';
import { runDueSubscriptionWork } from '../../src/modules/subscriptions/index.js';
import { subscriptions } from '../../src/modules/subscriptions/tables.js';
import { auditLogs } from '../../src/unit-of-work/index.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { linkedBillingAccount } from '../support/billing-fixtures.js';
import { adminPost, perSeat } from '../support/catalog-fixtures.js';

const DAY = 86_400_000;
const START = new Date('2024-01-15T10:00:00.000Z');

interface Product {
  id: string;
  name: string;
}

let t: TestApp;
const clock = new ManualClock(START);
const faults = new FaultController();
let shop: TestTenant;
let other: TestTenant;
let org: { id: string };
let billingId: string;
let starter: Product;
let pro: Product;
let proYear: Product;
let addOn: Product;
let workshop: Product;

beforeAll(async () => {
  t = await startApp({ clock, wrapBilling: (a) => withFaults(a, faults) });
  shop = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  ({ billingId, account: org } = await linkedBillingAccount(t, shop, 'Initech'));
  starter = await adminPost(
    t,
    shop,
    'products',
    perSeat('Starter', 1000, { entitlements: { seats: 5, sso: false } }),
  );
  pro = await adminPost(
    t,
    shop,
    'products',
    perSeat('Pro', 2500, { rank: 2, entitlements: { seats: 20, sso: true, api_calls: null } }),
  );
  proYear = await adminPost(
    t,
    shop,
    'products',
    perSeat('Pro annual', 25_000, {
      rank: 2,
      billingInterval: 'year',
      entitlements: { seats: 20, sso: true, api_calls: null },
    }),
  );
  addOn = await adminPost(t, shop, 'products', {
    ...perSeat('Extra seats', 700, { entitlements: { seats: 5, audit_log: true } }),
    type: 'add_on',
    family: null,
    rank: null,
  });
  workshop = await adminPost(t, shop, 'products', {
    name: 'Workshop',
    type: 'one_time',
    currency: 'USD',
    charges: [
      {
        name: 'Seat',
        chargeModel: 'flat_fee',
        tiers: [{ upTo: null, unitPriceCents: 0, flatPriceCents: 9900 }],
      },
    ],
  });
});
afterAll(() => t.app.close());
beforeEach(() => {
  clock.set(START);
  faults.reset();
});

const post = (url: string, payload: object, key = shop.keys.commerce, headers: Record<string, string> = {}) =>
  api(t, key).post(url, payload, { headers });
const get = (url: string, key = shop.keys.read) => api(t, key).get(url);
const create = async (payload: object = {}) => {
  const res = await post('/subscriptions', {
    productId: starter.id,
    quantity: 5,
    organizationId: org.id,
    ...payload,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
};
const eventsOf = async (resourceId: string, tenant = shop) =>
  (
    await t.deps.db
      .select()
      .from(events)
      .where(eq(events.tenantId, tenant.tenantId))
      .orderBy(events.occurredAt, events.id)
  )
    .filter((e) => (e.payload as { resourceId?: string }).resourceId === resourceId)
    .map((e) => ({ type: e.type, payload: e.payload as Record<string, unknown> }));
const auditOf = async (resourceId: string, action: string) =>
  (await get(`/audit-logs?resourceId=${resourceId}&action=${action}`, shop.keys.admin)).json().data as {
    action: string;
    actor: { keyId: string | null };
    details: Record<string, unknown>;
  }[];
const rowCounts = async (tenantId = shop.tenantId) => {
  const n = async (table: typeof subscriptions | typeof events | typeof auditLogs | typeof paymentSessions) =>
    (await t.deps.db.select({ n: count() }).from(table).where(eq(table.tenantId, tenantId)))[0]?.n;
  return {
    subscriptions: await n(subscriptions),
    events: await n(events),
    audit: await n(auditLogs),
    sessions: await n(paymentSessions),
  };
};
const invoices = async () =>
  (await get(`/accounts/${billingId}/invoices`)).json().data as {
    id: string;
    amountCents: number;
    lines: { description: string; amountCents: number }[];
  }[];

describe('subscriptions: create', () => {
  it('creates a billing-linked subscription: period from the interval, first period invoiced, event and audit', async () => {
    const res = await post('/subscriptions', {
      productId: starter.id,
      quantity: 5,
      organizationId: org.id,
      customerContext: { segment: 'smb' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const sub = res.json().data;
    expect(sub).toMatchObject({
      tenantId: shop.tenantId,
      productId: starter.id,
      productName: 'Starter',
      parentSubscriptionId: null,
      organizationId: org.id,
      contactId: null,
      billingAccountId: billingId,
      billingSubscriptionId: expect.stringMatching(/^bs_/),
      quantity: 5,
      priceCents: 5000,
      currency: 'USD',
      billingInterval: 'month',
      status: 'active',
      currentPeriodStart: '2024-01-15T10:00:00.000Z',
      currentPeriodEnd: '2024-02-15T10:00:00.000Z',
      pendingChange: null,
      cancelledAt: null,
      version: 1,
    });
    const invoice = (await invoices()).find(
      (i) => i.amountCents === 5000 && i.lines[0]?.description.startsWith('Starter x 5'),
    );
    expect(invoice).toBeDefined();
    expect(res.json().nextActions.map((a: { rel: string }) => a.rel)).toContain('payInvoice');
    expect((await get(`/subscriptions/${sub.id}`)).json().data).toEqual(sub);

    const evs = await eventsOf(sub.id);
    expect(evs.map((e) => e.type)).toEqual(['subscription.created']);
    expect(evs[0]?.payload).toEqual({
      resourceType: 'subscription',
      resourceId: sub.id,
      status: 'active',
      subscription: {
        entitlements: { seats: 5, sso: false },
        resolvedFrom: { productId: starter.id, productName: 'Starter' },
      },
      userId: shop.keyIds.commerce,
    });
    const audit = await auditOf(sub.id, 'subscription.create');
    expect(audit).toHaveLength(1);
    expect(audit[0]?.actor.keyId).toBe(shop.keyIds.commerce);
    expect(audit[0]?.details).toMatchObject({
      after: { productId: starter.id, quantity: 5, priceCents: 5000 },
    });

    // Lists: newest first, filtered by owner organization or billing account, and status.
    for (const accountId of [org.id, billingId]) {
      const listed = (await get(`/subscriptions?accountId=${accountId}`)).json().data as { id: string }[];
      expect(listed.map((s) => s.id)).toContain(sub.id);
    }
    expect((await get(`/subscriptions?accountId=${other.tenantId}`)).json().data).toEqual([]);
    expect(
      (await get('/subscriptions?status=cancelled')).json().data.map((s: { id: string }) => s.id),
    ).not.toContain(sub.id);
    // Another tenant sees nothing of it.
    expect((await get(`/subscriptions/${sub.id}`, other.keys.read)).statusCode).toBe(404);
    expect((await get('/subscriptions', other.keys.read)).json().data).toEqual([]);
  });

  it('refuses bad input with 400 naming the field, wrong scopes with 403, and writes nothing', async () => {
    const before = await rowCounts();
    const cases: [object, string, string][] = [
      [{ productId: starter.id, quantity: 0, organizationId: org.id }, 'quantity', 'minimum'],
      [{ productId: '01900000-0000-7000-8000-00000000dead', organizationId: org.id }, 'productId', 'exists'],
      [{ productId: 'not-a-uuid', organizationId: org.id }, 'productId', 'format'],
      [{ productId: workshop.id, organizationId: org.id }, 'productId', 'type'],
      [{ productId: addOn.id, organizationId: org.id }, 'parentSubscriptionId', 'required'],
      [{ productId: starter.id }, 'organizationId', 'required'],
      [{ productId: starter.id, organizationId: other.tenantId }, 'organizationId', 'exists'],
      [{ productId: starter.id, organizationId: org.id, accountId: 'nope' }, 'accountId', 'format'],
      [{ productId: starter.id, organizationId: org.id, orderId: other.tenantId }, 'orderId', 'exists'],
    ];
    for (const [payload, field, rule] of cases) {
      const res = await post('/subscriptions', payload);
      expect(res.statusCode, `${field}: ${res.body}`).toBe(400);
      expect(errorBody(res).details?.[0]).toMatchObject({ field, rule });
    }
    expect(
      (await post('/subscriptions', { productId: starter.id, organizationId: org.id }, shop.keys.read))
        .statusCode,
    ).toBe(403);
    expect(await rowCounts()).toEqual(before);
  });

  it('502 on a billing outage with nothing written; a retry with the same Idempotency-Key provisions once', async () => {
    const before = await rowCounts();
    const billingBefore = (await invoices()).length;
    faults.failAll = true;
    const res = await post(
      '/subscriptions',
      { productId: starter.id, organizationId: org.id },
      shop.keys.commerce,
      {
        'idempotency-key': 'create-outage-1',
      },
    );
    expect(res.statusCode).toBe(502);
    expect(errorBody(res).code).toBe('billing_unavailable');
    expect(await rowCounts()).toEqual(before);
    faults.failAll = false;
    const retry = await post(
      '/subscriptions',
      { productId: starter.id, organizationId: org.id },
      shop.keys.commerce,
      {
        'idempotency-key': 'create-outage-1',
      },
    );
    expect(retry.statusCode).toBe(201);
    const again = await post(
      '/subscriptions',
      { productId: starter.id, organizationId: org.id },
      shop.keys.commerce,
      {
        'idempotency-key': 'create-outage-1',
      },
    );
    expect(again.headers['x-idempotency-replayed']).toBe('true');
    expect(again.json().data.id).toBe(retry.json().data.id);
    expect((await invoices()).length).toBe(billingBefore + 1);
    expect((await rowCounts()).subscriptions).toBe((before.subscriptions ?? 0) + 1);
  });
});

describe('subscriptions: plan changes and their previews', () => {
  it('upgrade: the preview equals the change to the cent, prorated by UTC days, and the previewId executes it', async () => {
    const sub = await create();
    clock.set(new Date(START.getTime() + 10 * DAY)); // Jan 25: 21 of 31 days left
    const before = await rowCounts();
    const preview = await post(
      '/preview/plan-change',
      { subscriptionId: sub.id, targetProductId: pro.id },
      shop.keys.read,
    );
    expect(preview.statusCode, preview.body).toBe(200);
    const p = preview.json().data;
    expect(p).toMatchObject({
      subscriptionId: sub.id,
      currentProduct: { id: starter.id, name: 'Starter', priceCents: 5000 },
      targetProduct: { id: pro.id, name: 'Pro', priceCents: 12_500 },
      direction: 'upgrade',
      effectiveDate: '2024-01-25T10:00:00.000Z',
      planDependencyAdjustments: [],
      financialImpact: {
        currentPriceCents: 5000,
        newPriceCents: 12_500,
        creditCents: 3387, // 5000 * 21 / 31 = 3387.09
        chargeCents: 8468, // 12500 * 21 / 31 = 8467.74
        netCents: 5081,
        currency: 'USD',
      },
      businessRule: {
        ruleId: 'default-upgrade',
        ruleName: 'Default: upgrade now, prorated',
        direction: 'upgrade',
        changeTiming: 'immediate',
        prorationType: 'prorated',
      },
      policyEvaluation: { allowed: true, evaluations: [] },
      resolvedPrice: {
        basePriceCents: 12_500,
        pricingTierCount: 1,
        tiers: [{ name: 'Seats', price: 125, currency: 'USD', chargeModel: 'per_unit' }],
      },
      proration: { remainingDays: 21, totalDays: 31 },
      expiresAt: '2024-01-25T10:15:00.000Z',
    });
    expect(await rowCounts()).toEqual(before);

    clock.advance(5 * 60_000); // the change a few minutes later still runs at the previewed figures
    const invoicesBefore = (await invoices()).length;
    const res = await post(`/subscriptions/${sub.id}/change-plan`, {
      targetProductId: pro.id,
      previewId: p.previewId,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      productId: pro.id,
      productName: 'Pro',
      priceCents: 12_500,
      status: 'active',
      currentPeriodEnd: '2024-02-15T10:00:00.000Z',
      version: 2,
    });
    const [invoice] = await invoices();
    expect((await invoices()).length).toBe(invoicesBefore + 1);
    expect(invoice?.amountCents).toBe(5081);
    const audit = await auditOf(sub.id, 'subscription.change');
    expect(audit[0]?.details).toMatchObject({
      change: 'plan',
      creditCents: 3387,
      chargeCents: 8468,
      netCents: 5081,
      effectiveDate: '2024-01-25T10:00:00.000Z',
      previewId: p.previewId,
      before: { productId: starter.id },
      after: { productId: pro.id },
    });
    const evs = await eventsOf(sub.id);
    expect(evs.map((e) => e.type)).toEqual(['subscription.created', 'subscription.changed']);
    expect(evs[1]?.payload).toEqual({
      resourceType: 'subscription',
      resourceId: sub.id,
      status: 'active',
      subscription: {
        entitlements: { seats: 20, sso: true, api_calls: null },
        resolvedFrom: { productId: pro.id, productName: 'Pro' },
      },
      userId: shop.keyIds.commerce,
    });
    // The same preview id again: the subscription changed since.
    const stale = await post(`/subscriptions/${sub.id}/change-plan`, {
      targetProductId: pro.id,
      previewId: p.previewId,
    });
    expect(stale.statusCode).toBe(409);
  });

  it('preview ids: 400 when expired, malformed or for another change; 409 when prices changed', async () => {
    const sub = await create();
    const preview = (
      await post('/preview/plan-change', { subscriptionId: sub.id, targetProductId: pro.id }, shop.keys.read)
    ).json().data;
    const change = (payload: object) => post(`/subscriptions/${sub.id}/change-plan`, payload);
    const bad = await change({ targetProductId: proYear.id, previewId: preview.previewId });
    expect(bad.statusCode).toBe(400);
    expect(errorBody(bad).details?.[0]).toMatchObject({ field: 'previewId', rule: 'matches' });
    expect(errorBody(await change({ targetProductId: pro.id, previewId: 'pv1.x' })).details?.[0]?.field).toBe(
      'previewId',
    );
    const cancelPreview = (
      await post('/preview/cancellation', { subscriptionId: sub.id }, shop.keys.read)
    ).json().data;
    expect((await change({ targetProductId: pro.id, previewId: cancelPreview.previewId })).statusCode).toBe(
      400,
    );
    clock.advance(15 * 60_000 + 1);
    const expired = await change({ targetProductId: pro.id, previewId: preview.previewId });
    expect(expired.statusCode).toBe(400);
    expect(errorBody(expired).details?.[0]).toMatchObject({ field: 'previewId', rule: 'expired' });
    // A price change between preview and change: 409, nothing changed.
    const fresh = (
      await post('/preview/plan-change', { subscriptionId: sub.id, targetProductId: pro.id }, shop.keys.read)
    ).json().data;
    const offer = await adminPost(t, shop, 'offers', {
      name: 'Ten off Pro',
      productId: pro.id,
      discountType: 'percent',
      percentOff: 10,
      startsAt: '2020-01-01T00:00:00Z',
    });
    const conflict = await change({ targetProductId: pro.id, previewId: fresh.previewId });
    expect(conflict.statusCode, conflict.body).toBe(409);
    expect((await get(`/subscriptions/${sub.id}`)).json().data.version).toBe(1);
    await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/offers/${offer.id}`,
      headers: bearer(shop.keys.admin),
    });
  });
});

describe('subscriptions: downgrade and quantity', () => {
  it('downgrade at the period end by the default rule; the scheduler applies it and renews at the new price', async () => {
    const sub = await create({ productId: pro.id, quantity: 2 });
    clock.set(new Date('2024-02-01T00:00:00Z'));
    const preview = (
      await post(
        '/preview/plan-change',
        { subscriptionId: sub.id, targetProductId: starter.id },
        shop.keys.read,
      )
    ).json().data;
    expect(preview).toMatchObject({
      direction: 'downgrade',
      effectiveDate: '2024-02-15T10:00:00.000Z',
      financialImpact: {
        currentPriceCents: 5000,
        newPriceCents: 2000,
        creditCents: 0,
        chargeCents: 0,
        netCents: 0,
      },
      businessRule: { ruleId: 'default-downgrade', changeTiming: 'end_of_period', prorationType: 'none' },
      proration: null,
    });
    const res = await post(`/subscriptions/${sub.id}/change-plan`, { targetProductId: starter.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      productId: pro.id,
      priceCents: 5000,
      status: 'pending_change',
      pendingChange: {
        kind: 'plan',
        productId: starter.id,
        productName: 'Starter',
        quantity: 2,
        priceCents: 2000,
        billingInterval: 'month',
        effectiveAt: '2024-02-15T10:00:00.000Z',
      },
    });
    expect((await eventsOf(sub.id)).at(-1)?.payload).toMatchObject({ status: 'pending_change' });

    // Not due yet: renew is 409 and the scheduler leaves it.
    const early = await post(`/subscriptions/${sub.id}/renew`, {});
    expect(early.statusCode).toBe(409);
    expect(errorBody(early)).toMatchObject({
      code: 'subscription_not_due',
      nextActions: [{ rel: 'self', method: 'GET', href: `/api/v1/subscriptions/${sub.id}` }],
    });
    clock.set(new Date('2024-02-15T10:00:00Z'));
    const run = await runDueSubscriptionWork(t.deps, { tenantId: shop.tenantId });
    expect(run.failed).toEqual([]);
    const after = (await get(`/subscriptions/${sub.id}`)).json().data;
    expect(after).toMatchObject({
      productId: starter.id,
      productName: 'Starter',
      priceCents: 2000,
      status: 'active',
      pendingChange: null,
      currentPeriodStart: '2024-02-15T10:00:00.000Z',
      currentPeriodEnd: '2024-03-15T10:00:00.000Z',
    });
    const evs = await eventsOf(sub.id);
    expect(evs.slice(-2).map((e) => e.type)).toEqual(['subscription.changed', 'subscription.renewed']);
    expect(evs.at(-1)?.payload).toEqual({
      resourceType: 'subscription',
      resourceId: sub.id,
      status: 'active',
      subscription: {
        entitlements: { seats: 5, sso: false },
        resolvedFrom: { productId: starter.id, productName: 'Starter' },
      },
    });
    const renewal = (await auditOf(sub.id, 'subscription.renew'))[0];
    expect(renewal?.actor.keyId).toBeNull();
    const sessionId = renewal?.details.paymentSessionId as string;
    const session = (await get(`/payments/${sessionId}`)).json().data;
    expect(session).toMatchObject({
      accountId: billingId,
      amountCents: 2000,
      currency: 'USD',
      status: 'pending',
    });
    expect(session.invoiceId).toBe(renewal?.details.invoiceId);
  });

  it('change-quantity: more seats now prorated, fewer at period end; 400 for quantity < 1', async () => {
    const sub = await create({ quantity: 3 });
    clock.set(new Date('2024-02-05T12:00:00Z')); // 10 of 31 days left
    const up = await post(`/subscriptions/${sub.id}/change-quantity`, { quantity: 4 });
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().data).toMatchObject({ quantity: 4, priceCents: 4000, status: 'active', version: 2 });
    const change = (await auditOf(sub.id, 'subscription.change'))[0];
    // credit 3000 * 10/31 = 967.7 -> 968; charge 4000 * 10/31 = 1290.3 -> 1290.
    expect(change?.details).toMatchObject({
      change: 'quantity',
      creditCents: 968,
      chargeCents: 1290,
      netCents: 322,
    });
    const down = await post(`/subscriptions/${sub.id}/change-quantity`, { quantity: 2 });
    expect(down.json().data).toMatchObject({
      quantity: 4,
      status: 'pending_change',
      pendingChange: { kind: 'quantity', quantity: 2, priceCents: 2000 },
    });
    const zero = await post(`/subscriptions/${sub.id}/change-quantity`, { quantity: 0 });
    expect(zero.statusCode).toBe(400);
    expect(errorBody(zero).details?.[0]).toMatchObject({ field: 'quantity' });
    expect(
      (await post(`/subscriptions/${sub.id}/change-quantity`, { quantity: 5 }, shop.keys.read)).statusCode,
    ).toBe(403);
    expect(
      (await post(`/subscriptions/${sub.id}/change-quantity`, { quantity: 5 }, other.keys.commerce))
        .statusCode,
    ).toBe(404);
  });
});

describe('subscriptions: cancellation and renewal', () => {
  it('cancel at the period end, then immediately; changes of a cancelled subscription are 409', async () => {
    const sub = await create();
    clock.set(new Date('2024-01-20T10:00:00Z'));
    const preview = (await post('/preview/cancellation', { subscriptionId: sub.id }, shop.keys.read)).json()
      .data;
    expect(preview).toMatchObject({
      subscriptionId: sub.id,
      timing: 'end_of_period',
      effectiveDate: '2024-02-15T10:00:00.000Z',
      financialImpact: {
        currentPriceCents: 5000,
        creditCents: 0,
        refundCents: 0,
        chargeCents: 0,
        netCents: 0,
      },
      unusedDays: 0,
      entitlementsLost: { seats: 5, sso: false },
      addOnsCancelled: [],
    });
    const res = await post(`/subscriptions/${sub.id}/cancel`, { previewId: preview.previewId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'pending_cancellation', cancelledAt: null, version: 2 });
    expect((await eventsOf(sub.id)).at(-1)).toEqual({
      type: 'subscription.cancelled',
      payload: {
        resourceType: 'subscription',
        resourceId: sub.id,
        status: 'pending_cancellation',
        subscription: {
          entitlements: { seats: 5, sso: false },
          resolvedFrom: { productId: starter.id, productName: 'Starter' },
        },
        userId: shop.keyIds.commerce,
      },
    });
    expect((await post(`/subscriptions/${sub.id}/change-plan`, { targetProductId: pro.id })).statusCode).toBe(
      409,
    );
    expect((await post(`/subscriptions/${sub.id}/cancel`, { timing: 'end_of_period' })).statusCode).toBe(409);
    expect((await post(`/subscriptions/${sub.id}/renew`, {})).statusCode).toBe(409);

    const now = await post(`/subscriptions/${sub.id}/cancel`, { timing: 'immediate' });
    expect(now.json().data).toMatchObject({ status: 'cancelled', cancelledAt: '2024-01-20T10:00:00.000Z' });
    expect((await eventsOf(sub.id)).at(-1)?.payload).toMatchObject({
      status: 'cancelled',
      subscription: { entitlements: {}, resolvedFrom: { productId: starter.id } },
    });
    const audits = await auditOf(sub.id, 'subscription.cancel');
    expect(audits.map((a) => a.details.timing).sort()).toEqual(['end_of_period', 'immediate']);
    for (const [url, payload] of [
      ['change-plan', { targetProductId: pro.id }],
      ['change-quantity', { quantity: 9 }],
      ['cancel', { timing: 'immediate' }],
      ['renew', {}],
    ] as const) {
      const r = await post(`/subscriptions/${sub.id}/${url}`, payload);
      expect(r.statusCode, url).toBe(409);
      expect(errorBody(r).code).toBe('conflict');
    }
    expect((await post('/preview/cancellation', { subscriptionId: sub.id }, shop.keys.read)).statusCode).toBe(
      409,
    );
  });

  it('the scheduler ends pending cancellations at the period end', async () => {
    const sub = await create();
    await post(`/subscriptions/${sub.id}/cancel`, { timing: 'end_of_period' });
    clock.set(new Date('2024-02-15T10:00:00Z'));
    await runDueSubscriptionWork(t.deps, { tenantId: shop.tenantId });
    expect((await get(`/subscriptions/${sub.id}`)).json().data).toMatchObject({
      status: 'cancelled',
      cancelledAt: '2024-02-15T10:00:00.000Z',
    });
    const last = (await eventsOf(sub.id)).at(-1);
    expect(last?.type).toBe('subscription.cancelled');
    expect(last?.payload).not.toHaveProperty('userId');
  });

  it('renew over HTTP once due: new period, invoice, payment session', async () => {
    const sub = await create({ quantity: 1 });
    clock.set(new Date('2024-02-15T10:00:00Z'));
    const res = await post(`/subscriptions/${sub.id}/renew`, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      status: 'active',
      currentPeriodStart: '2024-02-15T10:00:00.000Z',
      currentPeriodEnd: '2024-03-15T10:00:00.000Z',
      version: 2,
      renewal: 'due',
      renewedPeriod: { start: '2024-02-15T10:00:00.000Z', end: '2024-03-15T10:00:00.000Z' },
    });
    const evs = await eventsOf(sub.id);
    expect(evs.at(-1)?.payload).toEqual({
      resourceType: 'subscription',
      resourceId: sub.id,
      status: 'active',
      subscription: {
        entitlements: { seats: 5, sso: false },
        resolvedFrom: { productId: starter.id, productName: 'Starter' },
      },
      userId: shop.keyIds.commerce,
    });
    const audit = (await auditOf(sub.id, 'subscription.renew'))[0];
    expect(audit?.details).toMatchObject({ priceCents: 1000, invoiceId: expect.stringMatching(/^in_/) });
    const session = (await get(`/payments/${audit?.details.paymentSessionId}`)).json().data;
    expect(session).toMatchObject({ amountCents: 1000, invoiceId: audit?.details.invoiceId });
    // Renewed once: a second renew bills the following period early, a third is not due.
    const early = await post(`/subscriptions/${sub.id}/renew`, {});
    expect(early.statusCode, early.body).toBe(200);
    expect(early.json().data).toMatchObject({
      renewal: 'early',
      renewedPeriod: { start: '2024-03-15T10:00:00.000Z', end: '2024-04-15T10:00:00.000Z' },
      currentPeriodEnd: '2024-03-15T10:00:00.000Z',
    });
    const again = await post(`/subscriptions/${sub.id}/renew`, {});
    expect(again.statusCode).toBe(409);
    expect(errorBody(again).code).toBe('subscription_not_due');
  });
});

describe('subscriptions: policies, concurrency and change failures', () => {
  it('a plan_change policy blocks the change (403) and shows in the preview', async () => {
    const tenant = await createTestTenant(t.deps);
    const a = await adminPost(t, tenant, 'products', perSeat('A', 100));
    const b = await adminPost(t, tenant, 'products', perSeat('B', 50, { rank: 0 }));
    const policy = await adminPost(t, tenant, 'policies', {
      name: 'No downgrades',
      type: 'plan_change',
      effect: 'block',
      condition: { '==': [{ var: 'direction' }, 'downgrade'] },
    });
    const sub = (
      await post(
        '/subscriptions',
        { productId: a.id, contactId: '01900000-0000-7000-8000-0000000000c1' },
        tenant.keys.commerce,
      )
    ).json().data;
    const preview = (
      await post('/preview/plan-change', { subscriptionId: sub.id, targetProductId: b.id }, tenant.keys.read)
    ).json().data;
    expect(preview.policyEvaluation).toEqual({
      allowed: false,
      evaluations: [
        { policyId: policy.id, policyName: 'No downgrades', policyType: 'plan_change', result: 'block' },
      ],
    });
    const before = await rowCounts(tenant.tenantId);
    const res = await post(
      `/subscriptions/${sub.id}/change-plan`,
      { targetProductId: b.id },
      tenant.keys.commerce,
    );
    expect(res.statusCode).toBe(403);
    expect(errorBody(res).code).toBe('policy_blocked');
    expect(await rowCounts(tenant.tenantId)).toEqual(before);
  });

  it('two concurrent changes of one subscription: one applies, the other is 409; billing agrees', async () => {
    const sub = await create({ quantity: 2 });
    faults.latencyMs = 30; // both read the subscription before either commits
    const [a, b] = await Promise.all([
      post(`/subscriptions/${sub.id}/change-quantity`, { quantity: 7 }),
      post(`/subscriptions/${sub.id}/change-quantity`, { quantity: 9 }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const winner = (a.statusCode === 200 ? a : b).json().data;
    const billing = (await get(`/accounts/${billingId}/subscriptions`))
      .json()
      .data.find((s: { id: string }) => s.id === sub.billingSubscriptionId);
    expect(billing).toMatchObject({ quantity: winner.quantity, priceCents: winner.priceCents });
    expect((await get(`/subscriptions/${sub.id}`)).json().data.version).toBe(2);
  });

  it('change-plan failures: 400 for targets the rules refuse, 404 for other tenants, 502 with nothing changed', async () => {
    const sub = await create();
    const euro = await adminPost(
      t,
      shop,
      'products',
      perSeat('Euro plan', 900, { currency: 'EUR', rank: 3 }),
    );
    const inactive = await adminPost(
      t,
      shop,
      'products',
      perSeat('Old plan', 900, { rank: 3, active: false }),
    );
    const cases: [string, string][] = [
      ['01900000-0000-7000-8000-00000000dead', 'exists'],
      [workshop.id, 'type'],
      [addOn.id, 'type'],
      [euro.id, 'currency'],
      [inactive.id, 'active'],
      [starter.id, 'distinct'],
    ];
    for (const [targetProductId, rule] of cases) {
      const res = await post(`/subscriptions/${sub.id}/change-plan`, { targetProductId });
      expect(res.statusCode, rule).toBe(400);
      expect(errorBody(res).details?.[0]).toMatchObject({ field: 'targetProductId', rule });
    }
    for (const [url, payload] of [
      ['change-plan', { targetProductId: pro.id }],
      ['cancel', {}],
      ['renew', {}],
    ] as const) {
      expect((await post(`/subscriptions/${sub.id}/${url}`, payload, other.keys.commerce)).statusCode).toBe(
        404,
      );
      expect((await post(`/subscriptions/${sub.id}/${url}`, payload, shop.keys.read)).statusCode).toBe(403);
    }
    expect((await post('/subscriptions/not-a-uuid/cancel', {})).statusCode).toBe(400);
    expect((await post(`/subscriptions/01900000-0000-7000-8000-00000000dead/cancel`, {})).statusCode).toBe(
      404,
    );

    // A billing outage: 502, the subscription as it was, and the claim given back.
    const before = await rowCounts();
    faults.failAll = true;
    const down = await post(`/subscriptions/${sub.id}/change-plan`, { targetProductId: pro.id });
    expect(down.statusCode).toBe(502);
    faults.failAll = false;
    expect(await rowCounts()).toEqual(before);
    expect((await get(`/subscriptions/${sub.id}`)).json().data).toMatchObject({
      productId: starter.id,
      version: 1,
    });
    const retry = await post(
      `/subscriptions/${sub.id}/change-plan`,
      { targetProductId: pro.id },
      shop.keys.commerce,
      {
        'idempotency-key': 'upgrade-after-outage',
      },
    );
    expect(retry.statusCode, retry.body).toBe(200);
    const replay = await post(
      `/subscriptions/${sub.id}/change-plan`,
      { targetProductId: pro.id },
      shop.keys.commerce,
      {
        'idempotency-key': 'upgrade-after-outage',
      },
    );
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(replay.json().data.version).toBe(2);
    expect((await auditOf(sub.id, 'subscription.change')).length).toBe(1);
  });
});

describe('subscriptions: OpenAPI and the scheduler catching up', () => {
  it('documents the bodies with examples in OpenAPI', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    for (const path of [
      '/api/v1/subscriptions',
      '/api/v1/subscriptions/{id}/change-plan',
      '/api/v1/preview/plan-change',
    ]) {
      const body = JSON.stringify(doc.paths[path].post.requestBody);
      expect(body, path).toMatch(/example/);
    }
    expect(doc.paths['/api/v1/subscriptions/{id}/cancel'].post['x-required-scope']).toBe('commerce');
    expect(doc.paths['/api/v1/preview/cancellation'].post['x-required-scope']).toBe('read');
  });

  it('the scheduler: a billing outage leaves the subscription due for the next run, which catches up', async () => {
    const tenant = shop;
    const sub = await create({ quantity: 1 });
    clock.set(new Date('2024-04-15T10:00:00Z')); // three periods have ended
    faults.failAll = true;
    const failed = await runDueSubscriptionWork(t.deps, { tenantId: tenant.tenantId });
    faults.failAll = false;
    expect(failed.failed.map((f) => f.subscriptionId)).toContain(sub.id);
    expect((await get(`/subscriptions/${sub.id}`)).json().data).toMatchObject({
      version: 1,
      status: 'active',
    });
    expect((await auditOf(sub.id, 'subscription.renew')).length).toBe(0);
    await runDueSubscriptionWork(t.deps, { tenantId: tenant.tenantId });
    expect((await get(`/subscriptions/${sub.id}`)).json().data).toMatchObject({
      currentPeriodStart: '2024-04-15T10:00:00.000Z',
      currentPeriodEnd: '2024-05-15T10:00:00.000Z',
      version: 4,
    });
    expect((await auditOf(sub.id, 'subscription.renew')).length).toBe(3);
  });
});
