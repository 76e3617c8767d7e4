import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { ManualClock } from '../../src/clock.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost } from '../support/catalog-fixtures.js';

const DAY = 86_400_000;
const clock = new ManualClock(new Date('2030-05-20T12:00:00.000Z'));
let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let engine: BuiltinBilling;
let billingId: string;
let workshop: { id: string };

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  await t.app.inject({
    method: 'PUT',
    url: '/api/v1/admin/billing-integration',
    headers: bearer(tenant.keys.admin),
    payload: { adapter: 'builtin' },
  });
  engine = new BuiltinBilling(t.deps.db, t.deps.clock, tenant.tenantId);
  billingId = (await engine.createAccount({ name: 'Acme', currency: 'USD' })).id;
  workshop = await adminPost(t, tenant, 'products', {
    name: 'Workshop',
    type: 'one_time',
    currency: 'USD',
    charges: [{ name: 'Seat', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 2500 }] }],
  });
});
afterAll(() => t.app.close());

const shop = () => api(t, tenant.keys.commerce);

/** A successful payment of a fresh invoice of `cents`. */
async function paidSession(cents: number) {
  const invoice = await engine.createInvoice({
    accountId: billingId,
    currency: 'USD',
    lines: [{ description: 'x', quantity: 1, unitAmountCents: cents }],
    idempotencyKey: `inv-${cents}-${clock.now().getTime()}`,
  });
  if (!invoice.ok) throw new Error('invoice');
  const created = await shop().post('/payments', {
    accountId: billingId,
    amountCents: cents,
    currency: 'USD',
    invoiceId: invoice.value.id,
  });
  const id = created.json().data.id as string;
  expect((await shop().post(`/payments/${id}/complete`)).statusCode).toBe(200);
  return id;
}

describe('GET /admin/overview', () => {
  it('counts and sums the last 24 hours and 30 days, with a revenue series of every day', async () => {
    // 40 days ago (outside both windows), 3 days ago (30 days only), and now.
    clock.set(new Date(clock.now().getTime() - 40 * DAY));
    await paidSession(9900);
    clock.advance(37 * DAY);
    await paidSession(5000);
    const order = await shop().post('/orders', { items: [{ productId: workshop.id, quantity: 2 }] });
    expect(order.statusCode, order.body).toBe(201);
    clock.advance(3 * DAY);
    const today = await paidSession(3000);
    expect(
      (await shop().post(`/payments/${today}/refunds`, { amountCents: 1000, reason: 'duplicate' }))
        .statusCode,
    ).toBe(201);

    // An operator's view, as every /admin route: a read or commerce key is refused.
    expect((await api(t, tenant.keys.read).get('/admin/overview')).statusCode).toBe(403);
    const res = await api(t, tenant.keys.admin).get('/admin/overview');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.asOf).toBe('2030-05-20T12:00:00.000Z');
    expect(data.payments).toEqual({
      last24Hours: { count: 1, amounts: [{ currency: 'USD', amountCents: 3000 }] },
      last30Days: { count: 2, amounts: [{ currency: 'USD', amountCents: 8000 }] },
    });
    expect(data.refunds).toEqual({
      last24Hours: { count: 1, amounts: [{ currency: 'USD', amountCents: 1000 }] },
      last30Days: { count: 1, amounts: [{ currency: 'USD', amountCents: 1000 }] },
    });
    expect(data.orders.last24Hours.count).toBe(0);
    expect(data.orders.last30Days).toEqual({ count: 1, amounts: [{ currency: 'USD', amountCents: 5000 }] });
    const [usd] = data.revenue;
    expect(usd.currency).toBe('USD');
    expect(usd.days).toHaveLength(30);
    expect(usd.days[29]).toEqual({
      date: '2030-05-20',
      paymentsCents: 3000,
      refundsCents: 1000,
      netCents: 2000,
    });
    expect(usd.days[26]).toEqual({
      date: '2030-05-17',
      paymentsCents: 5000,
      refundsCents: 0,
      netCents: 5000,
    });
    expect(usd.netCents).toBe(7000);
    expect(data.openIntents).toEqual({ pending: 0, attention: 0 });
    expect(data.webhooks).toMatchObject({ failingEndpoints: [], deadLetters: 0 });
    expect(res.json().nextActions.map((a: { rel: string }) => a.rel)).toEqual([
      'orders',
      'webhooks',
      'intents',
    ]);
  });

  it('ends the windows at `now` when given, and refuses a malformed one naming the field', async () => {
    const earlier = await api(t, tenant.keys.admin).get('/admin/overview?now=2030-05-18T00:00:00.000Z');
    expect(earlier.statusCode).toBe(200);
    expect(earlier.json().data.payments.last30Days.count).toBe(1);
    expect(earlier.json().data.refunds.last30Days.count).toBe(0);
    const bad = await api(t, tenant.keys.admin).get('/admin/overview?now=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(errorBody(bad).details?.[0]?.field).toBe('query.now');
  });

  it('shows another tenant nothing of this one', async () => {
    const res = await api(t, other.keys.admin).get('/admin/overview');
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.payments.last30Days).toEqual({ count: 0, amounts: [] });
    expect(data.revenue).toEqual([]);
    expect(data.webhooks.endpoints).toBe(0);
  });

  it('needs a key', async () => {
    expect((await api(t, null).get('/admin/overview')).statusCode).toBe(401);
  });
});

describe('GET /admin/request-errors', () => {
  it('lists this tenant’s recent error responses, newest first, and no other tenant’s', async () => {
    const missing = '0195f3c2-7a10-7c4e-9a55-3b1f7c2d9e01';
    const notFound = await api(t, tenant.keys.read).get(`/orders/${missing}`);
    expect(notFound.statusCode).toBe(404);
    const invalid = await api(t, tenant.keys.commerce).post('/orders', { items: 'none' });
    expect(invalid.statusCode).toBe(400);
    await api(t, other.keys.read).get(`/orders/${missing}`);

    const res = await api(t, tenant.keys.admin).get('/admin/request-errors');
    expect(res.statusCode, res.body).toBe(200);
    const [newest, previous] = res.json().data;
    expect(newest).toMatchObject({
      method: 'POST',
      route: '/api/v1/orders',
      operationId: 'createOrder',
      status: 400,
      code: 'validation_failed',
      requestId: invalid.headers['x-request-id'],
      at: '2030-05-20T12:00:00.000Z',
    });
    expect(previous).toMatchObject({ operationId: 'getOrder', status: 404, code: 'not_found' });
    expect(previous.message).toMatch(/not found/i);

    const others = (await api(t, other.keys.admin).get('/admin/request-errors')).json().data;
    expect(others.map((e: { requestId: string }) => e.requestId)).not.toContain(
      invalid.headers['x-request-id'],
    );
    expect(others).toHaveLength(1);
  });

  it('filters by the least status and limits', async () => {
    const res = await api(t, tenant.keys.admin).get('/admin/request-errors?status=500');
    expect(res.json().data).toEqual([]);
    const first = (await api(t, tenant.keys.admin).get('/admin/request-errors?limit=1')).json();
    expect(first.data).toHaveLength(1);
    expect(first.meta.nextCursor).toEqual(expect.any(String));
    const second = (
      await api(t, tenant.keys.admin).get(
        `/admin/request-errors?limit=1&cursor=${encodeURIComponent(first.meta.nextCursor)}`,
      )
    ).json();
    expect(second.data).toHaveLength(1);
    expect(second.data[0].requestId).not.toBe(first.data[0].requestId);
    const forged = await api(t, tenant.keys.admin).get('/admin/request-errors?limit=1&cursor=abc.def');
    expect(forged.statusCode).toBe(400);
    const bad = await api(t, tenant.keys.admin).get('/admin/request-errors?status=200');
    expect(bad.statusCode).toBe(400);
    expect(errorBody(bad).details?.[0]?.field).toBe('query.status');
  });

  it('is refused to a key without the admin scope', async () => {
    const res = await api(t, tenant.keys.read).get('/admin/request-errors');
    expect(res.statusCode).toBe(403);
  });
});

describe('GET /orders?number=', () => {
  it('finds an order by its number, shown or bare, and refuses another shape', async () => {
    const created = (
      await shop().post('/orders', { items: [{ productId: workshop.id, quantity: 1 }] })
    ).json().data;
    const shown = await api(t, tenant.keys.read).get(`/orders?number=${created.orderNumber}&limit=5`);
    expect(shown.statusCode).toBe(200);
    expect(shown.json().data.map((o: { id: string }) => o.id)).toEqual([created.id]);
    const bare = await api(t, tenant.keys.read).get(`/orders?number=${created.orderNumber.slice(4)}&limit=5`);
    expect(bare.json().data.map((o: { id: string }) => o.id)).toEqual([created.id]);
    expect(
      (await api(t, other.keys.read).get(`/orders?number=${created.orderNumber}&limit=5`)).json().data,
    ).toEqual([]);
    const bad = await api(t, tenant.keys.read).get('/orders?number=INV-12');
    expect(bad.statusCode).toBe(400);
    expect(errorBody(bad).details?.[0]?.field).toBe('query.number');
  });
});
