import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { listEvents } from '../../src/events/outbox.js';
import { events } from '../../src/events/tables.js';
import { issueApiKey } from '../../src/modules/api-keys/index.js';
import { runDueSubscriptionWork } from '../../src/modules/subscriptions/index.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost, entitledPlans, perSeat } from '../support/catalog-fixtures.js';

const START = new Date('2024-03-01T00:00:00.000Z');
const CONTACT = '01900000-0000-7000-8000-0000000000c1';
const MISSING = '01900000-0000-7000-8000-00000000dead';

let t: TestApp;
const clock = new ManualClock(START);
let shop: TestTenant;
let other: TestTenant;
let team: { id: string };
let business: { id: string };
let basic: { id: string };
let seats: { id: string };
let audit: { id: string };

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  ({ team, business, seats, audit } = await entitledPlans(t, shop));
  basic = await adminPost(t, shop, 'products', perSeat('Basic', 500, { rank: 0, entitlements: {} }));
});
afterAll(() => t.app.close());
beforeEach(() => clock.set(START));

const post = (app: TestApp, url: string, payload: object, key = shop.keys.commerce) =>
  api(app, key).post(url, payload);
const get = (url: string, key = shop.keys.read, app = t) => api(app, key).get(url);
const account = async (tenant = shop) => {
  const res = await post(t, '/accounts', { name: 'Initech' }, tenant.keys.commerce);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
};
const subscribe = async (payload: object) => {
  const res = await post(t, '/subscriptions', { quantity: 1, ...payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string };
};
const check = async (accountId: string, feature: string, app = t) => {
  const res = await get(`/entitlements/check?accountId=${accountId}&feature=${feature}`, shop.keys.read, app);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const changedEvents = async (accountId: string) =>
  (await listEvents(t.deps.db, shop.tenantId, 'entitlements.changed'))
    .map((e) => e.payload as { accountId: string; entitlements?: object; resolvedFrom?: unknown[] })
    .filter((p) => p.accountId === accountId)
    .reverse();

describe('entitlements of an account: resolving the set', () => {
  it('resolves a plan and its add-ons into one set, and says which subscription grants what', async () => {
    const org = await account();
    const plan = await subscribe({ productId: team.id, quantity: 3, organizationId: org });
    const extra = await subscribe({ productId: seats.id, quantity: 2, parentSubscriptionId: plan.id });
    const log = await subscribe({ productId: audit.id, parentSubscriptionId: plan.id });
    const res = await get(`/accounts/${org}/entitlements`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      data: {
        accountId: org,
        // Limits add up (quantity does not multiply them), null is unlimited, flags OR.
        entitlements: { seats: 15, sso: false, audit_log: true, retention_days: null },
        resolvedFrom: [
          {
            subscriptionId: plan.id,
            parentSubscriptionId: null,
            productId: team.id,
            productName: 'Team',
            status: 'active',
            entitlements: { seats: 10, sso: false },
          },
          {
            subscriptionId: extra.id,
            parentSubscriptionId: plan.id,
            productId: seats.id,
            productName: 'Extra seats',
            status: 'active',
            entitlements: { seats: 5 },
          },
          {
            subscriptionId: log.id,
            parentSubscriptionId: plan.id,
            productId: audit.id,
            productName: 'Audit log',
            status: 'active',
            entitlements: { audit_log: true, retention_days: null },
          },
        ],
      },
      nextActions: [
        expect.objectContaining({ rel: 'self', href: `/api/v1/accounts/${org}/entitlements`, allowed: true }),
        expect.objectContaining({ rel: 'account', href: `/api/v1/accounts/${org}` }),
        expect.objectContaining({ rel: 'subscriptions', href: `/api/v1/subscriptions?accountId=${org}` }),
      ],
    });

    expect(await check(org, 'seats')).toEqual({
      accountId: org,
      feature: 'seats',
      allowed: true,
      limit: 15,
      grantedBy: [
        { subscriptionId: plan.id, productId: team.id, productName: 'Team', value: 10 },
        { subscriptionId: extra.id, productId: seats.id, productName: 'Extra seats', value: 5 },
      ],
    });
    // null limit: unlimited.
    expect(await check(org, 'retention_days')).toMatchObject({ allowed: true, limit: null });
    expect(await check(org, 'audit_log')).toMatchObject({ allowed: true, limit: null });
    // A flag set to false, and a feature nobody grants: not allowed; no usage is tracked.
    const sso = await check(org, 'sso');
    expect(sso).toMatchObject({ allowed: false, limit: null, grantedBy: [{ value: false }] });
    expect(sso).not.toHaveProperty('usage');
    expect(await check(org, 'exports')).toEqual({
      accountId: org,
      feature: 'exports',
      allowed: false,
      limit: null,
      grantedBy: [],
    });
  });

  it('`{}` grants nothing; an account without subscriptions has the empty set; others do not count', async () => {
    const org = await account();
    const sub = await subscribe({ productId: basic.id, organizationId: org });
    // A subscription of another account, and one owned by a contact only: not this account's.
    await subscribe({ productId: business.id, organizationId: await account() });
    await subscribe({ productId: business.id, contactId: CONTACT });
    const res = (await get(`/accounts/${org}/entitlements`)).json().data;
    expect(res).toEqual({
      accountId: org,
      entitlements: {},
      resolvedFrom: [expect.objectContaining({ subscriptionId: sub.id, entitlements: {} })],
    });
    expect(await check(org, 'seats')).toMatchObject({ allowed: false, limit: null, grantedBy: [] });
    const empty = await account();
    expect((await get(`/accounts/${empty}/entitlements`)).json().data).toEqual({
      accountId: empty,
      entitlements: {},
      resolvedFrom: [],
    });
  });

  it('a limit of 0 is not allowed; two plans of one account add up', async () => {
    const zero = await adminPost(t, shop, 'products', perSeat('Zero', 100, { entitlements: { seats: 0 } }));
    const org = await account();
    await subscribe({ productId: zero.id, organizationId: org });
    expect(await check(org, 'seats')).toMatchObject({ allowed: false, limit: 0 });
    await subscribe({ productId: team.id, organizationId: org });
    expect(await check(org, 'seats')).toMatchObject({ allowed: true, limit: 10 });
  });

  it('404 for an unknown account and for another tenant’s; 400 naming the parameter', async () => {
    const theirs = await account(other);
    for (const id of [MISSING, theirs]) {
      for (const url of [
        `/accounts/${id}/entitlements`,
        `/entitlements/check?accountId=${id}&feature=seats`,
      ]) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(404);
        expect(errorBody(res).code).toBe('not_found');
      }
    }
    // Theirs is found by them.
    expect((await get(`/accounts/${theirs}/entitlements`, other.keys.read)).statusCode).toBe(200);
    const org = await account();
    for (const [url, field, rule] of [
      ['/accounts/nope/entitlements', 'path.id', 'format'],
      ['/entitlements/check?feature=seats', 'query.accountId', 'required'],
      ['/entitlements/check?accountId=nope&feature=seats', 'query.accountId', 'format'],
      [`/entitlements/check?accountId=${org}`, 'query.feature', 'required'],
      [`/entitlements/check?accountId=${org}&feature=Seats%20x`, 'query.feature', 'pattern'],
      [`/entitlements/check?accountId=${org}&feature=seats&usage=1`, 'query.usage', 'additionalProperties'],
    ] as const) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(errorBody(res)).toMatchObject({ code: 'validation_failed', details: [{ field, rule }] });
    }
  });

  it('needs a key with the read scope', async () => {
    const org = await account();
    const { secret } = await issueApiKey(t.deps.db, shop.tenantId, {
      name: 'no scopes',
      scopes: [],
      rateTier: 'unlimited',
      environment: t.deps.config.appEnv,
    });
    for (const url of [
      `/accounts/${org}/entitlements`,
      `/entitlements/check?accountId=${org}&feature=seats`,
    ]) {
      const res = await get(url, secret);
      expect(res.statusCode, url).toBe(403);
      expect(errorBody(res).code).toBe('forbidden');
      expect((await t.app.inject({ method: 'GET', url: `/api/v1${url}` })).statusCode).toBe(401);
    }
  });
});

describe('entitlements of an account: changes announced', () => {
  it('answers the change at once, on this instance and on another sharing the database', async () => {
    const second = await startApp({ clock });
    try {
      const org = await account();
      const sub = await subscribe({ productId: team.id, organizationId: org });
      // Both instances have answered (and remembered what they could) before the changes.
      expect(await check(org, 'seats')).toMatchObject({ allowed: true, limit: 10 });
      expect(await check(org, 'seats', second)).toMatchObject({ allowed: true, limit: 10 });
      expect(await check(org, 'sso', second)).toMatchObject({ allowed: false });

      const upgrade = await post(t, `/subscriptions/${sub.id}/change-plan`, { targetProductId: business.id });
      expect(upgrade.json().data, upgrade.body).toMatchObject({ productId: business.id, status: 'active' });
      expect(await check(org, 'sso', second)).toMatchObject({ allowed: true });
      expect(await check(org, 'seats')).toMatchObject({ limit: 50 });

      // An add-on bought on the second instance counts on the first.
      const extra = await post(second, '/subscriptions', {
        productId: seats.id,
        parentSubscriptionId: sub.id,
      });
      expect(extra.statusCode, extra.body).toBe(201);
      expect(await check(org, 'seats')).toMatchObject({ limit: 55 });

      // Cancelled at the period end: granted until it ends.
      await post(t, `/subscriptions/${sub.id}/cancel`, { timing: 'end_of_period' });
      expect(await check(org, 'seats', second)).toMatchObject({ allowed: true, limit: 55 });
      const now = await post(second, `/subscriptions/${sub.id}/cancel`, { timing: 'immediate' });
      expect(now.json().data, now.body).toMatchObject({ status: 'cancelled' });
      expect(await check(org, 'seats')).toMatchObject({ allowed: false, limit: null, grantedBy: [] });
      expect(await check(org, 'seats', second)).toMatchObject({ allowed: false, limit: null });
      expect((await get(`/accounts/${org}/entitlements`, shop.keys.read, second)).json().data).toMatchObject({
        entitlements: {},
        resolvedFrom: [],
      });
    } finally {
      await second.app.close();
    }
  });

  it('a cancellation at the period end stops granting when the scheduler ends it', async () => {
    const org = await account();
    const sub = await subscribe({ productId: team.id, organizationId: org });
    await subscribe({ productId: audit.id, parentSubscriptionId: sub.id });
    await post(t, `/subscriptions/${sub.id}/cancel`, { timing: 'end_of_period' });
    expect(await check(org, 'audit_log')).toMatchObject({ allowed: true });
    expect((await changedEvents(org)).length).toBe(2); // created, add-on; not the pending cancellation
    clock.set(new Date('2024-04-01T00:00:01Z'));
    await runDueSubscriptionWork(t.deps, { tenantId: shop.tenantId });
    expect((await get(`/subscriptions/${sub.id}`)).json().data.status).toBe('cancelled');
    expect(await check(org, 'audit_log')).toMatchObject({ allowed: false });
    expect(await check(org, 'seats')).toMatchObject({ allowed: false });
    // Ending the base ends what its add-on gave too: one event, and none when the add-on ends after.
    expect((await changedEvents(org)).map((e) => e.entitlements)).toEqual([
      { seats: 10, sso: false },
      { seats: 10, sso: false, audit_log: true, retention_days: null },
      {},
    ]);
  });

  it('a product edit announces the new set to each account holding it whose set it changes, once', async () => {
    const scale = await adminPost(
      t,
      shop,
      'products',
      perSeat('Scale', 2000, { rank: 3, entitlements: { seats: 20 } }),
    );
    const unlimited = await adminPost(t, shop, 'products', {
      ...perSeat('Unlimited seats', 100, { entitlements: { seats: null } }),
      type: 'add_on',
      family: null,
      rank: null,
      billingInterval: null,
    });
    const [a, b, c, d] = [await account(), await account(), await account(), await account()];
    await subscribe({ productId: scale.id, organizationId: a });
    await subscribe({ productId: scale.id, quantity: 2, organizationId: b });
    const base = await subscribe({ productId: scale.id, organizationId: c });
    await subscribe({ productId: unlimited.id, parentSubscriptionId: base.id });
    await subscribe({ productId: team.id, organizationId: d });
    const before = new Map(
      await Promise.all([a, b, c, d].map(async (id) => [id, (await changedEvents(id)).length] as const)),
    );
    const patch = (payload: object) => api(t, shop.keys.admin).patch(`/admin/products/${scale.id}`, payload);
    const edited = await patch({ entitlements: { seats: 25, sso: true } });
    expect(edited.statusCode, edited.body).toBe(200);
    for (const id of [a, b]) {
      const evs = await changedEvents(id);
      expect(evs).toHaveLength((before.get(id) ?? 0) + 1);
      expect(evs.at(-1)).toMatchObject({ accountId: id, entitlements: { seats: 25, sso: true } });
    }
    // c: its add-on's unlimited seats win either way, but sso is new to it; d holds another plan.
    expect((await changedEvents(c)).at(-1)).toMatchObject({ entitlements: { seats: null, sso: true } });
    expect(await changedEvents(c)).toHaveLength((before.get(c) ?? 0) + 1);
    expect(await changedEvents(d)).toHaveLength(before.get(d) ?? 0);
    expect(await check(a, 'seats')).toMatchObject({ allowed: true, limit: 25 });
    // An edit that leaves the entitlements as they were, or changes no set, announces nothing.
    expect((await patch({ name: 'Scale 2' })).statusCode).toBe(200);
    expect((await patch({ entitlements: { seats: 25, sso: true } })).statusCode).toBe(200);
    for (const id of [a, b, c]) expect(await changedEvents(id)).toHaveLength((before.get(id) ?? 0) + 1);
  });

  it('emits entitlements.changed exactly when the set changes, in the unit of the change', async () => {
    const org = await account();
    const sub = await subscribe({ productId: team.id, quantity: 2, organizationId: org });
    let evs = await changedEvents(org);
    expect(evs).toEqual([
      {
        accountId: org,
        entitlements: { seats: 10, sso: false },
        resolvedFrom: [
          {
            subscriptionId: sub.id,
            parentSubscriptionId: null,
            productId: team.id,
            productName: 'Team',
            status: 'active',
            entitlements: { seats: 10, sso: false },
          },
        ],
      },
    ]);

    // Quantity does not change the set: no event (now or scheduled).
    const more = await post(t, `/subscriptions/${sub.id}/change-quantity`, { quantity: 4 });
    expect(more.statusCode, more.body).toBe(200);
    const fewer = await post(t, `/subscriptions/${sub.id}/change-quantity`, { quantity: 3 });
    expect(fewer.json().data).toMatchObject({ status: 'pending_change' });
    expect(await changedEvents(org)).toHaveLength(1);

    // The add-on changes it.
    await subscribe({ productId: seats.id, parentSubscriptionId: sub.id });
    evs = await changedEvents(org);
    expect(evs).toHaveLength(2);
    expect(evs[1]).toMatchObject({ entitlements: { seats: 15, sso: false } });
    expect(evs[1]?.resolvedFrom).toHaveLength(2);

    // A second subscription to a plan granting nothing: the set is the same.
    await subscribe({ productId: basic.id, organizationId: org });
    expect(await changedEvents(org)).toHaveLength(2);

    // The immediate cancellation of the plan with its add-on: one event, the set without them.
    const requestId = `cancel-${org}`;
    const cancel = await t.app.inject({
      method: 'POST',
      url: `/api/v1/subscriptions/${sub.id}/cancel`,
      headers: { ...bearer(shop.keys.commerce), 'x-request-id': requestId },
      payload: { timing: 'immediate' },
    });
    expect(cancel.statusCode, cancel.body).toBe(200);
    evs = await changedEvents(org);
    expect(evs).toHaveLength(3);
    expect(evs[2]).toEqual({
      accountId: org,
      entitlements: {},
      resolvedFrom: [expect.objectContaining({ productId: basic.id, entitlements: {} })],
    });
    // Written by the cancellation's unit: its request wrote the three events, and only it.
    const written = await t.deps.db
      .select({ type: events.type, payload: events.payload })
      .from(events)
      .where(and(eq(events.tenantId, shop.tenantId), eq(events.requestId, requestId)));
    expect(written.map((e) => e.type).sort()).toEqual([
      'entitlements.changed',
      'subscription.cancelled',
      'subscription.cancelled',
    ]);
  });

  it('a downgrade applied at the period end changes the set at the renewal', async () => {
    const org = await account();
    const sub = await subscribe({ productId: business.id, organizationId: org });
    const down = await post(t, `/subscriptions/${sub.id}/change-plan`, { targetProductId: team.id });
    expect(down.json().data, down.body).toMatchObject({ status: 'pending_change' });
    expect(await check(org, 'sso')).toMatchObject({ allowed: true });
    expect(await changedEvents(org)).toHaveLength(1);
    clock.set(new Date('2024-04-01T00:00:01Z'));
    await runDueSubscriptionWork(t.deps, { tenantId: shop.tenantId });
    expect(await check(org, 'sso')).toMatchObject({ allowed: false });
    expect((await changedEvents(org)).map((e) => e.entitlements)).toEqual([
      { seats: 50, sso: true },
      { seats: 10, sso: false },
    ]);
  });

  it('a product gone makes the set unknown: 409, never an empty set', async () => {
    const gone = await adminPost(t, shop, 'products', perSeat('Legacy', 100, { entitlements: { seats: 3 } }));
    const org = await account();
    const sub = await subscribe({ productId: gone.id, organizationId: org });
    expect(await check(org, 'seats')).toMatchObject({ allowed: true, limit: 3 });
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/products/${gone.id}`,
      headers: bearer(shop.keys.admin),
    });
    expect(del.statusCode, del.body).toBe(204);
    for (const url of [
      `/accounts/${org}/entitlements`,
      `/entitlements/check?accountId=${org}&feature=seats`,
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(409);
      expect(errorBody(res)).toMatchObject({ code: 'conflict' });
      expect(errorBody(res).error).toContain(sub.id);
      expect(res.json().nextActions).toEqual([
        expect.objectContaining({ rel: 'subscription', href: `/api/v1/subscriptions/${sub.id}` }),
      ]);
    }
  });
});
