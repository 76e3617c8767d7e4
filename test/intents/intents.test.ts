import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { FaultController, withFaults } from '../../src/billing/index.js';
import { ManualClock } from '../../src/clock.js';
import { reconcileIntents } from '../../src/unit-of-work/index.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api, type Method } from '../support/api.js';
import { linkedBillingAccount } from '../support/billing-fixtures.js';
import { adminPost, perSeat } from '../support/catalog-fixtures.js';
import { consoleApi, signedIn } from '../support/console.js';

// Intents over HTTP: an operation whose billing call took effect but whose answer was lost stays
// pending (its subscription claimed), is visible to admins and in /readyz, blocks other changes of
// its subscription (409), and is finished by a retry or the reconciler; a refusal or an outage
// that sent nothing closes it at once.

describe('billing intents', () => {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
  const faults = new FaultController();
  let t: TestApp;
  let shop: TestTenant;
  let other: TestTenant;
  let orgId: string;
  let plan: { id: string };
  let billingId: string;

  const call = (method: string, url: string, key: string, payload?: object, headers = {}) =>
    api(t, key).send(method as Method, url, payload, { headers });

  beforeAll(async () => {
    t = await startApp({ clock, wrapBilling: (a) => withFaults(a, faults) });
    shop = await createTestTenant(t.deps);
    other = await createTestTenant(t.deps);
    ({ billingId, orgId } = await linkedBillingAccount(t, shop, 'Acme'));
    plan = await adminPost(t, shop, 'products', perSeat('Seats', 1000));
  });
  afterAll(() => t.app.close());

  const subscribe = async () => {
    const res = await call('POST', '/subscriptions', shop.keys.commerce, {
      productId: plan.id,
      quantity: 2,
      organizationId: orgId,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data;
  };
  const pending = async (key = shop.keys.admin) =>
    (await call('GET', '/admin/intents?status=pending', key)).json().data as {
      id: string;
      operation: string;
      subject: { id: string } | null;
    }[];

  it('a change whose answer was lost: pending, visible, blocking; the reconciler finishes it', async () => {
    const sub = await subscribe();
    faults.only = ['changeSubscription'];
    faults.applyThenFailNext = 1;
    const lost = await call('POST', `/subscriptions/${sub.id}/change-quantity`, shop.keys.commerce, {
      quantity: 5,
      timing: 'immediate',
    });
    faults.reset();
    expect(lost.statusCode).toBe(502);

    const [intent] = await pending();
    expect(intent).toMatchObject({
      operation: 'subscriptions.change',
      status: 'pending',
      recovery: 'roll_forward',
      subject: { type: 'subscription', id: sub.id },
      effects: [
        {
          step: 'change',
          kind: 'change_subscription',
          outcome: 'unknown',
          idempotencyKey: expect.stringMatching(/^cak_/),
        },
      ],
      lastError: expect.stringContaining('timeout'),
    });
    const one = await call('GET', `/admin/intents/${intent?.id}`, shop.keys.admin);
    expect(one.json().data).toMatchObject({ id: intent?.id, status: 'pending' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.json().intents.pending).toBeGreaterThanOrEqual(1);

    // Another change of the claimed subscription waits for this one.
    const blocked = await call('POST', `/subscriptions/${sub.id}/change-quantity`, shop.keys.commerce, {
      quantity: 3,
      timing: 'immediate',
    });
    expect(blocked.statusCode).toBe(409);
    expect(errorBody(blocked).error).toContain('in progress');

    // Other tenants and lesser keys see nothing of it.
    expect((await call('GET', `/admin/intents/${intent?.id}`, other.keys.admin)).statusCode).toBe(404);
    expect(await pending(other.keys.admin)).toEqual([]);
    expect((await call('GET', '/admin/intents', shop.keys.commerce)).statusCode).toBe(403);

    clock.advance(60_000);
    const report = await reconcileIntents(t.deps, { tenantId: shop.tenantId });
    expect(report).toMatchObject({ examined: 1, completed: 1 });
    const done = (await call('GET', `/admin/intents/${intent?.id}`, shop.keys.admin)).json().data;
    expect(done).toMatchObject({
      status: 'completed',
      resolvedBy: 'reconciler',
      effects: [{ outcome: 'applied' }],
    });
    const after = (await call('GET', `/subscriptions/${sub.id}`, shop.keys.read)).json().data;
    expect(after).toMatchObject({ quantity: 5, version: 2 });
    const billed = await new BuiltinBilling(t.deps.db, clock, shop.tenantId).listSubscriptions(billingId);
    expect(billed.ok && billed.value.find((b) => b.id === sub.billingSubscriptionId)).toMatchObject({
      quantity: 5,
    });
  });

  it('a console user’s change finished by the reconciler is audited with that user as the actor', async () => {
    const sub = await subscribe();
    const support = await signedIn(t, shop.tenantId, 'support');
    faults.only = ['changeSubscription'];
    faults.applyThenFailNext = 1;
    const lost = await consoleApi(t, support).post(`/subscriptions/${sub.id}/change-quantity`, {
      quantity: 6,
      timing: 'immediate',
    });
    faults.reset();
    expect(lost.statusCode).toBe(502);
    const intent = (await pending()).find((i) => i.subject?.id === sub.id);
    expect(intent).toMatchObject({ actorKeyId: null, actorUserId: support.userId });

    clock.advance(60_000);
    expect(await reconcileIntents(t.deps, { tenantId: shop.tenantId })).toMatchObject({ completed: 1 });
    const audit = await call(
      'GET',
      `/audit-logs?resourceId=${sub.id}&action=subscription.change`,
      shop.keys.admin,
    );
    expect(audit.json().data).toMatchObject([
      { details: { after: { quantity: 6 } }, actor: { keyId: null, userId: support.userId } },
    ]);
    const done = (await call('GET', `/admin/intents/${intent?.id}`, shop.keys.admin)).json().data;
    expect(done).toMatchObject({
      status: 'completed',
      resolvedBy: 'reconciler',
      actorUserId: support.userId,
    });
  });

  it('the same request retried after the lost answer finishes it (same key, same body)', async () => {
    const sub = await subscribe();
    const key = { 'idempotency-key': `retry-${sub.id}` };
    faults.only = ['changeSubscription'];
    faults.applyThenFailNext = 1;
    const lost = await call(
      'POST',
      `/subscriptions/${sub.id}/change-quantity`,
      shop.keys.commerce,
      { quantity: 4, timing: 'immediate' },
      key,
    );
    faults.reset();
    expect(lost.statusCode).toBe(502);
    // The failed run gave its lease up: the retry takes the intent over at once, with the same keys.
    const body = { quantity: 4, timing: 'immediate' };
    const retried = await call(
      'POST',
      `/subscriptions/${sub.id}/change-quantity`,
      shop.keys.commerce,
      body,
      key,
    );
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().data).toMatchObject({ quantity: 4, version: 2 });
    const replayed = await call(
      'POST',
      `/subscriptions/${sub.id}/change-quantity`,
      shop.keys.commerce,
      body,
      key,
    );
    expect(replayed.headers['x-idempotency-replayed']).toBe('true');
    const intents = (
      await call('GET', '/admin/intents?operation=subscriptions.change', shop.keys.admin)
    ).json().data;
    const mine = intents.find((i: { subject: { id: string } }) => i.subject.id === sub.id);
    expect(mine).toMatchObject({
      status: 'completed',
      resolvedBy: 'operation',
      runs: 2,
      effects: [{ outcome: 'applied' }],
    });
    const billed = await new BuiltinBilling(t.deps.db, clock, shop.tenantId).listSubscriptions(billingId);
    expect(billed.ok && billed.value.find((b) => b.id === sub.billingSubscriptionId)).toMatchObject({
      quantity: 4,
    });
  });

  it('an outage that sent nothing, or a refusal, closes the intent and gives the claim back at once', async () => {
    const sub = await subscribe();
    faults.only = ['changeSubscription'];
    faults.failNext = 1;
    const down = await call('POST', `/subscriptions/${sub.id}/change-quantity`, shop.keys.commerce, {
      quantity: 6,
      timing: 'immediate',
    });
    faults.reset();
    expect(down.statusCode).toBe(502);
    const intents = (
      await call('GET', '/admin/intents?operation=subscriptions.change', shop.keys.admin)
    ).json().data;
    expect(intents[0]).toMatchObject({ status: 'failed', effects: [{ outcome: 'not_applied' }] });
    const now = await call('POST', `/subscriptions/${sub.id}/change-quantity`, shop.keys.commerce, {
      quantity: 6,
      timing: 'immediate',
    });
    expect(now.statusCode, now.body).toBe(200);
  });
});
