import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { listEvents } from '../../src/events/outbox.js';
import { events } from '../../src/events/tables.js';
import { runDueSubscriptionWork } from '../../src/modules/subscriptions/index.js';
import { subscriptions } from '../../src/modules/subscriptions/tables.js';
import { auditLogs } from '../../src/unit-of-work/index.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { entitledPlans } from '../support/catalog-fixtures.js';

const START = new Date('2024-03-01T00:00:00.000Z');
const CONTACT = '01900000-0000-7000-8000-0000000000c1';
const MISSING = '01900000-0000-7000-8000-00000000dead';

let t: TestApp;
const clock = new ManualClock(START);
let shop: TestTenant;
let other: TestTenant;
let team: { id: string };
let business: { id: string };
let seats: { id: string };
let audit: { id: string };

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  ({ team, business, seats, audit } = await entitledPlans(t, shop));
});
afterAll(() => t.app.close());
beforeEach(() => clock.set(START));

const post = (url: string, payload: object, key = shop.keys.commerce) => api(t, key).post(url, payload);
const get = (url: string, key = shop.keys.read) => api(t, key).get(url);
const create = async (payload: object) => {
  const res = await post('/subscriptions', payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
};
const lastEvent = async (resourceId: string) =>
  (await listEvents(t.deps.db, shop.tenantId)).find(
    (e) => (e.payload as { resourceId?: string }).resourceId === resourceId,
  );
const counts = async () => {
  const n = async (table: typeof subscriptions | typeof events | typeof auditLogs) =>
    (await t.deps.db.select({ n: count() }).from(table).where(eq(table.tenantId, shop.tenantId)))[0]?.n;
  return { subscriptions: await n(subscriptions), events: await n(events), audit: await n(auditLogs) };
};

describe('subscription add-ons: buying and previews', () => {
  it('add-on: preview, buy at the previewed figures; entitlements merge, never into resolvedFrom', async () => {
    const parent = await create({ productId: team.id, quantity: 2, contactId: CONTACT });
    clock.set(new Date('2024-03-11T08:00:00Z')); // 21 of 31 days left
    const before = await counts();
    const preview = await post(
      '/preview/add-on',
      { subscriptionId: parent.id, addOnProductId: seats.id, quantity: 2 },
      shop.keys.read,
    );
    expect(preview.statusCode, preview.body).toBe(200);
    const p = preview.json().data;
    expect(p).toMatchObject({
      subscriptionId: parent.id,
      addOnProduct: { id: seats.id, name: 'Extra seats', priceCents: 600 },
      quantity: 2,
      billingInterval: 'month',
      effectiveDate: '2024-03-11T08:00:00.000Z',
      periodEnd: '2024-04-01T00:00:00.000Z',
      // 600 * 21 / 31 = 406.45
      financialImpact: { priceCents: 600, chargeCents: 406, creditCents: 0, netCents: 406, currency: 'USD' },
      proration: { remainingDays: 21, totalDays: 31 },
      entitlements: {
        before: { seats: 10, sso: false },
        after: { seats: 15, sso: false },
        gained: { seats: 15 },
      },
    });
    expect(await counts()).toEqual(before);

    const res = await post('/subscriptions', {
      productId: seats.id,
      quantity: 2,
      parentSubscriptionId: parent.id,
      previewId: p.previewId,
    });
    expect(res.statusCode, res.body).toBe(201);
    const addOnSub = res.json().data;
    expect(addOnSub).toMatchObject({
      productId: seats.id,
      parentSubscriptionId: parent.id,
      contactId: CONTACT,
      priceCents: 600,
      currentPeriodStart: '2024-03-11T08:00:00.000Z',
      currentPeriodEnd: '2024-04-01T00:00:00.000Z',
    });
    const auditEntry = (
      await get(`/audit-logs?resourceId=${addOnSub.id}&action=subscription.create`, shop.keys.admin)
    ).json().data[0];
    expect(auditEntry.details).toMatchObject({ chargeCents: 406, previewId: p.previewId });
    expect((await lastEvent(addOnSub.id))?.payload).toEqual({
      resourceType: 'subscription',
      resourceId: addOnSub.id,
      status: 'active',
      subscription: {
        entitlements: { seats: 15, sso: false },
        resolvedFrom: { productId: team.id, productName: 'Team' },
      },
      userId: shop.keyIds.commerce,
    });

    // A second add-on: null (unlimited) and booleans merge in; the parent's next event shows all.
    await create({ productId: audit.id, parentSubscriptionId: parent.id });
    await post(`/subscriptions/${parent.id}/change-plan`, { targetProductId: business.id });
    expect((await lastEvent(parent.id))?.payload).toEqual({
      resourceType: 'subscription',
      resourceId: parent.id,
      status: 'active',
      subscription: {
        entitlements: { seats: 55, sso: true, audit_log: true, retention_days: null },
        resolvedFrom: { productId: business.id, productName: 'Business' },
      },
      userId: shop.keyIds.commerce,
    });
    const listed = (await get(`/subscriptions?parentSubscriptionId=${parent.id}`)).json().data;
    expect(listed).toHaveLength(2);

    // Cancelling the parent cancels its add-ons; the preview says so first.
    const cancellation = (
      await post('/preview/cancellation', { subscriptionId: parent.id, timing: 'immediate' }, shop.keys.read)
    ).json().data;
    expect(cancellation.addOnsCancelled.sort()).toEqual(listed.map((s: { id: string }) => s.id).sort());
    expect(cancellation.entitlementsLost).toEqual({
      seats: 55,
      sso: true,
      audit_log: true,
      retention_days: null,
    });
    await post(`/subscriptions/${parent.id}/cancel`, {
      timing: 'immediate',
      previewId: cancellation.previewId,
    });
    const after = (await get(`/subscriptions?parentSubscriptionId=${parent.id}`)).json().data;
    expect(after.map((s: { status: string }) => s.status)).toEqual(['cancelled', 'cancelled']);
    expect((await lastEvent(addOnSub.id))?.payload).toMatchObject({
      status: 'cancelled',
      subscription: { entitlements: {}, resolvedFrom: { productId: business.id } },
    });
  });

  it('add-on previews: 404 for a missing subscription or product, 400 for a non-add-on or bad id', async () => {
    const parent = await create({ productId: team.id, contactId: CONTACT });
    const preview = (payload: object, key = shop.keys.read) => post('/preview/add-on', payload, key);
    expect((await preview({ subscriptionId: MISSING, addOnProductId: seats.id })).statusCode).toBe(404);
    expect((await preview({ subscriptionId: parent.id, addOnProductId: MISSING })).statusCode).toBe(404);
    expect(
      (await preview({ subscriptionId: parent.id, addOnProductId: seats.id }, other.keys.read)).statusCode,
    ).toBe(404);
    const notAddOn = await preview({ subscriptionId: parent.id, addOnProductId: business.id });
    expect(notAddOn.statusCode).toBe(400);
    expect(errorBody(notAddOn).details?.[0]).toMatchObject({ field: 'addOnProductId', rule: 'type' });
    const bad = await preview({ subscriptionId: 'nope', addOnProductId: seats.id });
    expect(bad.statusCode).toBe(400);
    expect(errorBody(bad).details?.[0]?.field).toBe('subscriptionId');
    // Buying with another add-on's preview id is 400; after the parent changed, 409.
    const p = (await preview({ subscriptionId: parent.id, addOnProductId: seats.id })).json().data;
    const wrong = await post('/subscriptions', {
      productId: audit.id,
      parentSubscriptionId: parent.id,
      previewId: p.previewId,
    });
    expect(wrong.statusCode).toBe(400);
    await post(`/subscriptions/${parent.id}/change-quantity`, { quantity: 3 });
    const stale = await post('/subscriptions', {
      productId: seats.id,
      parentSubscriptionId: parent.id,
      previewId: p.previewId,
    });
    expect(stale.statusCode).toBe(409);
  });

  it('plan-change and cancellation previews: 404s, read scope, and they write nothing', async () => {
    const sub = await create({ productId: team.id, contactId: CONTACT });
    const before = await counts();
    const plan = (payload: object, key = shop.keys.read) => post('/preview/plan-change', payload, key);
    expect((await plan({ subscriptionId: MISSING, targetProductId: business.id })).statusCode).toBe(404);
    expect((await plan({ subscriptionId: sub.id, targetProductId: MISSING })).statusCode).toBe(404);
    expect(
      (await plan({ subscriptionId: sub.id, targetProductId: business.id }, other.keys.read)).statusCode,
    ).toBe(404);
    expect((await plan({ subscriptionId: sub.id, targetProductId: 'x' })).statusCode).toBe(400);
    expect((await plan({ subscriptionId: sub.id })).statusCode).toBe(400);
    expect(
      (await post('/preview/cancellation', { subscriptionId: MISSING }, shop.keys.read)).statusCode,
    ).toBe(404);
    expect((await plan({ subscriptionId: sub.id, targetProductId: business.id })).statusCode).toBe(200);
    expect((await post('/preview/cancellation', { subscriptionId: sub.id }, shop.keys.read)).statusCode).toBe(
      200,
    );
    expect(
      (await post('/preview/add-on', { subscriptionId: sub.id, addOnProductId: seats.id }, shop.keys.read))
        .statusCode,
    ).toBe(200);
    expect(await counts()).toEqual(before);
    expect((await get(`/subscriptions/${sub.id}`)).json().data.version).toBe(1);
    const noKey = await t.app.inject({
      method: 'POST',
      url: '/api/v1/preview/cancellation',
      payload: { subscriptionId: sub.id },
    });
    expect(noKey.statusCode).toBe(401);
  });
});

describe('subscription add-ons: journeys and renewal', () => {
  it('a journey purchase provisions the subscription with the same payload shape, without userId', async () => {
    const journeyId = '01900000-0000-7000-8000-0000000000d1';
    const order = await post('/orders', {
      contactId: CONTACT,
      journeyId,
      items: [{ productId: team.id, quantity: 3 }],
    });
    expect(order.statusCode, order.body).toBe(201);
    const orderId = order.json().data.id;
    expect(order.json().nextActions.map((a: { rel: string }) => a.rel)).toContain('subscriptions');
    const [fromJourney] = (await get(`/subscriptions?orderId=${orderId}`)).json().data;
    expect(fromJourney).toMatchObject({
      productId: team.id,
      quantity: 3,
      priceCents: 3000,
      contactId: CONTACT,
      orderId,
    });
    const journeyEvent = await lastEvent(fromJourney.id);
    const direct = await create({ productId: team.id, quantity: 3, contactId: CONTACT });
    const directEvent = await lastEvent(direct.id);
    expect(journeyEvent?.type).toBe('subscription.created');
    expect(directEvent?.type).toBe('subscription.created');
    const { userId, ...directRest } = (directEvent?.payload ?? {}) as Record<string, unknown>;
    expect(userId).toBe(shop.keyIds.commerce);
    expect(journeyEvent?.payload).toEqual({ ...directRest, resourceId: fromJourney.id });
    expect(Object.keys(journeyEvent?.payload as object).sort()).toEqual(
      ['resourceId', 'resourceType', 'status', 'subscription'].sort(),
    );

    // Without a journey, an order only points at POST /subscriptions.
    const plain = await post('/orders', { contactId: CONTACT, items: [{ productId: team.id }] });
    expect((await get(`/subscriptions?orderId=${plain.json().data.id}`)).json().data).toEqual([]);
    // A journey purchase without an owner is 400, and nothing is written.
    const before = await counts();
    const ownerless = await post('/orders', { journeyId, items: [{ productId: team.id }] });
    expect(ownerless.statusCode).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it('the scheduler renews add-ons with their parent, locally without a billing account', async () => {
    const parent = await create({ productId: team.id, contactId: CONTACT });
    clock.set(new Date('2024-03-16T00:00:00Z'));
    const addOn = await create({ productId: seats.id, parentSubscriptionId: parent.id });
    clock.set(new Date('2024-04-01T00:00:00Z'));
    const run = await runDueSubscriptionWork(t.deps, { tenantId: shop.tenantId });
    expect(run.failed).toEqual([]);
    for (const id of [parent.id, addOn.id]) {
      expect((await get(`/subscriptions/${id}`)).json().data).toMatchObject({
        status: 'active',
        currentPeriodStart: '2024-04-01T00:00:00.000Z',
        currentPeriodEnd: '2024-05-01T00:00:00.000Z',
      });
      const renewal = (
        await get(`/audit-logs?resourceId=${id}&action=subscription.renew`, shop.keys.admin)
      ).json().data[0];
      const session = (await get(`/payments/${renewal.details.paymentSessionId}`)).json().data;
      // No billing account: the session is for the owner, without an invoice.
      expect(session).toMatchObject({ accountId: CONTACT, invoiceId: null });
    }
  });
});
