import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { FaultController, withFaults } from '../../src/billing/index.js';
import { listEvents } from '../../src/events/outbox.js';
import { usageEvents } from '../../src/modules/orders/tables.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost, seatPlan } from '../support/catalog-fixtures.js';
import { waitFor } from '../support/wait.js';

const oneTime = (overrides: object = {}) => ({
  name: 'Workshop',
  type: 'one_time',
  currency: 'USD',
  charges: [{ name: 'Seat', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 2500 }] }],
  ...overrides,
});

let t: TestApp;
let tenant: TestTenant;
const faults = new FaultController();
let meterFails = false;
let meterFailures = 0;
let plan: { id: string };
let workshop: { id: string };
let volume: { id: string };

beforeAll(async () => {
  t = await startApp({
    wrapBilling: (a) => withFaults(a, faults),
  });
  const realUsage = t.deps.usage;
  t.deps.usage = {
    recordOrder: async (...args) => {
      if (meterFails) {
        meterFailures++;
        throw new Error('metering is down');
      }
      return realUsage.recordOrder(...args);
    },
  };
  tenant = await createTestTenant(t.deps);
  plan = await adminPost(t, tenant, 'products', seatPlan());
  workshop = await adminPost(t, tenant, 'products', oneTime());
  volume = await adminPost(
    t,
    tenant,
    'products',
    oneTime({
      name: 'Licenses',
      charges: [
        {
          name: 'Licenses',
          chargeModel: 'volume',
          tiers: [
            { upTo: 10, unitPriceCents: 1000 },
            { upTo: null, unitPriceCents: 800 },
          ],
        },
      ],
    }),
  );
});
afterAll(() => t.app.close());

const post = (payload: object, key = tenant.keys.commerce, headers: Record<string, string> = {}) =>
  api(t, key).post('/orders', payload, { headers });
const get = (url: string, key = tenant.keys.read) => api(t, key).get(url);
const resolve = async (productId: string, quantity: number, extra = '') =>
  (await get(`/pricing/resolve?productId=${productId}&quantity=${quantity}${extra}`)).json().data
    .totalCents as number;
const orderCount = async (tn = tenant) => (await get('/orders', tn.keys.read)).json().data.length as number;

describe('orders: create', () => {
  it('prices lines by the engine, records differing hints, and starts a draft without owner', async () => {
    const res = await post({
      items: [
        { productId: plan.id, quantity: 12, priceCents: 1 },
        { productId: volume.id, quantity: 11 },
      ],
      totalCents: 5,
    });
    expect(res.statusCode, res.body).toBe(201);
    const { data, nextActions } = res.json();
    const expected = (await resolve(plan.id, 12)) + (await resolve(volume.id, 11));
    expect(data).toMatchObject({
      status: 'draft',
      totalCents: expected,
      currency: 'USD',
      contactId: null,
      organizationId: null,
      invoiceId: null,
    });
    expect(data.orderNumber).toMatch(/^ORD-\d+$/);
    expect(data.items[1]).toEqual({
      productId: volume.id,
      productName: 'Licenses',
      quantity: 11,
      priceCents: 800,
      totalCents: 8800,
      priced: 'engine',
    });
    expect(data.rulesApplied.hints).toEqual([
      { field: 'items.0.priceCents', submitted: 1, resolved: data.items[0].priceCents },
      { field: 'totalCents', submitted: 5, resolved: expected },
    ]);
    // No buyer: the order cannot be paid, and says how to get one.
    expect(nextActions.map((a: { rel: string }) => a.rel)).toEqual([
      'self',
      'update',
      'createSubscription',
      'createAccount',
    ]);
    const read = (await get(`/orders/${data.id}`)).json().data;
    const { rulesApplied: _r, ...withoutRules } = data;
    expect(read).toEqual(withoutRules);
  });

  it('starts pending with an owner, records a draft total as submitted, keeps journeyId', async () => {
    const contactId = '01900000-0000-7000-8000-0000000000c1';
    const journeyId = '01900000-0000-7000-8000-0000000000d1';
    const owned = (await post({ contactId, journeyId, items: [{ productId: workshop.id }] })).json();
    expect(owned.data).toMatchObject({ status: 'pending', contactId, journeyId, totalCents: 2500 });
    expect(owned.nextActions.map((a: { rel: string }) => a.rel)).toEqual([
      'self',
      'update',
      'createPaymentSession',
    ]);
    const draft = (await post({ totalCents: 4321 })).json().data;
    expect(draft).toMatchObject({ status: 'draft', totalCents: 4321, items: [] });
  });

  it('400 naming the line for unknown, inactive or other-currency products; writes nothing', async () => {
    const before = await orderCount();
    const inactive = await adminPost(t, tenant, 'products', oneTime({ active: false }));
    const euro = await adminPost(t, tenant, 'products', oneTime({ currency: 'EUR' }));
    const cases: [string, string][] = [
      ['01900000-0000-7000-8000-000000000999', 'exists'],
      [inactive.id, 'exists'],
      [euro.id, 'currency'],
    ];
    for (const [productId, rule] of cases) {
      const res = await post({ items: [{ productId: workshop.id }, { productId }] });
      expect(res.statusCode).toBe(400);
      expect(errorBody(res).details).toMatchObject([
        expect.objectContaining({ field: 'items.1.productId', rule }),
      ]);
    }
    expect(
      errorBody(await post({ cartId: '01900000-0000-7000-8000-000000000998' })).details?.[0],
    ).toMatchObject({ field: 'cartId' });
    expect(errorBody(await post({ currency: 'x'.repeat(11) })).details?.[0]).toMatchObject({
      field: 'currency',
      rule: 'maxLength',
    });
    expect(await orderCount()).toBe(before);
  });

  it('403 policy_blocked by an order_create policy, with nothing written', async () => {
    const blocked = await createTestTenant(t.deps);
    const p = await adminPost(t, blocked, 'products', oneTime());
    const policy = await adminPost(t, blocked, 'policies', {
      name: 'No big orders',
      type: 'order_create',
      effect: 'block',
      condition: { '>': [{ var: 'order.totalCents' }, 10_000] },
    });
    const small = await post({ items: [{ productId: p.id, quantity: 2 }] }, blocked.keys.commerce);
    expect(small.statusCode).toBe(201);
    expect(small.json().data.rulesApplied.policyEvaluation).toEqual({
      allowed: true,
      evaluations: [
        {
          policyId: policy.id,
          policyName: 'No big orders',
          policyType: 'order_create',
          result: 'not_applicable',
        },
      ],
    });
    const big = await post(
      { items: [{ productId: p.id, quantity: 5 }], totalCents: 1 },
      blocked.keys.commerce,
    );
    expect(big.statusCode).toBe(403);
    expect(errorBody(big)).toMatchObject({
      code: 'policy_blocked',
      details: [{ field: 'policy', rule: policy.id }],
    });
    expect(await orderCount(blocked)).toBe(1);
    expect(await listEvents(t.deps.db, blocked.tenantId, 'order.created')).toHaveLength(1);
  });
});

describe('orders: live quotes, policies and PATCH totals', () => {
  it('quotes passthrough charges live, or answers 502 quote_unavailable with nothing written', async () => {
    const shop = await createTestTenant(t.deps);
    const key = await adminPost(
      t,
      shop,
      'products',
      oneTime({
        name: 'Key',
        charges: [
          { name: 'Key', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 4500 }] },
          { name: 'Carrier', kind: 'passthrough' },
        ],
      }),
    );
    const none = await post({ items: [{ productId: key.id, quantity: 2 }] }, shop.keys.commerce);
    expect(none.statusCode).toBe(502);
    expect(errorBody(none).code).toBe('quote_unavailable');
    expect(await orderCount(shop)).toBe(0);
    // References are checked before any outside call: another tenant's account is 400, not 502.
    const other = await createTestTenant(t.deps);
    const foreign = await t.app.inject({
      method: 'POST',
      url: '/api/v1/accounts',
      headers: bearer(other.keys.commerce),
      payload: { name: 'Elsewhere' },
    });
    const theirs = await post(
      { organizationId: foreign.json().data.id, items: [{ productId: key.id, quantity: 2 }] },
      shop.keys.commerce,
    );
    expect(theirs.statusCode).toBe(400);
    expect(errorBody(theirs).details?.[0]).toMatchObject({ field: 'organizationId', rule: 'exists' });
    await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/billing-integration',
      headers: bearer(shop.keys.admin),
      payload: { adapter: 'builtin', config: { passthroughRates: { [key.charges[1].id]: 1200 } } },
    });
    const quoted = await post({ items: [{ productId: key.id, quantity: 2 }] }, shop.keys.commerce);
    expect(quoted.statusCode).toBe(201);
    expect(quoted.json().data).toMatchObject({
      totalCents: 2 * 4500 + 2 * 1200,
      items: [{ priced: 'quote', totalCents: 11_400, priceCents: 5700 }],
    });
    expect(quoted.json().data.rulesApplied.quotes).toEqual([
      { productId: key.id, chargeId: key.charges[1].id, amountCents: 2400 },
    ]);
  });

  it('policies before the live quote: blocked and needing an unavailable quote is 403, not 502', async () => {
    const shop = await createTestTenant(t.deps);
    const key = await adminPost(
      t,
      shop,
      'products',
      oneTime({
        name: 'Key',
        charges: [
          { name: 'Key', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 4500 }] },
          { name: 'Carrier', kind: 'passthrough' },
        ],
      }),
    );
    const policy = await adminPost(t, shop, 'policies', {
      name: 'No keys in bulk',
      type: 'order_create',
      effect: 'block',
      condition: { '>': [{ var: 'order.totalCents' }, 10_000] },
    });
    // The tenant has no billing integration: a quote is unavailable.
    const both = await post({ items: [{ productId: key.id, quantity: 3 }] }, shop.keys.commerce);
    expect(both.statusCode).toBe(403);
    expect(errorBody(both)).toMatchObject({
      code: 'policy_blocked',
      details: [{ field: 'policy', rule: policy.id }],
    });
    // Not blocked: the quote is asked for next, and is unavailable.
    const quoteOnly = await post({ items: [{ productId: key.id, quantity: 1 }] }, shop.keys.commerce);
    expect(errorBody(quoteOnly).code).toBe('quote_unavailable');
    expect(await orderCount(shop)).toBe(0);
  });

  it('PATCH totalCents is refused, never dropped, where the order does not take it', async () => {
    const shop = await createTestTenant(t.deps);
    const p = await adminPost(t, shop, 'products', oneTime());
    const priced = (
      await post(
        { contactId: '01900000-0000-7000-8000-0000000000c4', items: [{ productId: p.id }] },
        shop.keys.commerce,
      )
    ).json().data;
    const patch = (id: string, payload: object) => api(t, shop.keys.commerce).patch(`/orders/${id}`, payload);
    const refused = await patch(priced.id, { totalCents: 1 });
    expect(refused.statusCode).toBe(400);
    expect(errorBody(refused).details?.[0]).toMatchObject({ field: 'totalCents', rule: 'priced' });
    // Another total than the lines sent: refused too; the same total is taken.
    const mismatch = await patch(priced.id, { items: [{ productId: p.id, quantity: 2 }], totalCents: 1 });
    expect(errorBody(mismatch).details?.[0]).toMatchObject({ field: 'totalCents', rule: 'priced' });
    const hinted = await patch(priced.id, { items: [{ productId: p.id, quantity: 2, priceCents: 1 }] });
    expect(errorBody(hinted).details?.[0]).toMatchObject({ field: 'items.0.priceCents', rule: 'priced' });
    const same = await patch(priced.id, {
      items: [{ productId: p.id, quantity: 2, priceCents: 2500 }],
      totalCents: 5000,
    });
    expect(same.statusCode).toBe(200);
    expect((await get(`/orders/${priced.id}`, shop.keys.read)).json().data.totalCents).toBe(5000);
    expect((await listEvents(t.deps.db, shop.tenantId, 'order.updated')).length).toBe(1);
    // An order without lines takes a total, and what it is due follows.
    const loose = (
      await post({ contactId: '01900000-0000-7000-8000-0000000000c4', totalCents: 700 }, shop.keys.commerce)
    ).json().data;
    const moved = await patch(loose.id, { totalCents: 900 });
    expect(moved.json().data).toMatchObject({ totalCents: 900, paymentStatus: 'unpaid' });
    const offer = moved.json().nextActions.find((a: { rel: string }) => a.rel === 'createPaymentSession');
    expect(offer.arguments).toMatchObject({ amountCents: 900, orderId: loose.id });
  });
});

describe('orders: invoicing one-time orders of a billing-linked owner', () => {
  let shop: TestTenant;
  let org: { id: string };
  let billingId: string;

  beforeAll(async () => {
    shop = await createTestTenant(t.deps);
    await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/billing-integration',
      headers: bearer(shop.keys.admin),
      payload: { adapter: 'builtin' },
    });
    billingId = (
      await new BuiltinBilling(t.deps.db, t.deps.clock, shop.tenantId).createAccount({
        name: 'Initech',
        currency: 'USD',
      })
    ).id;
    org = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/accounts',
        headers: bearer(shop.keys.commerce),
        payload: { name: 'Initech', externalId: billingId },
      })
    ).json().data;
  });

  it('invoices at create, points at paying it, and emits invoice.created', async () => {
    const p = await adminPost(t, shop, 'products', oneTime());
    const res = await post(
      { organizationId: org.id, items: [{ productId: p.id, quantity: 3 }] },
      shop.keys.commerce,
    );
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json().data;
    expect(order).toMatchObject({
      status: 'pending',
      billingAccountId: billingId,
      invoiceId: expect.stringMatching(/^in_/),
    });
    expect(res.json().nextActions).toContainEqual({
      rel: 'payInvoice',
      method: 'POST',
      href: `/api/v1/invoices/${order.invoiceId}/pay`,
      requiredScope: 'commerce',
      allowed: true,
      operationId: 'payInvoice',
      arguments: { id: order.invoiceId, accountId: billingId, amountCents: 7500, currency: 'USD' },
    });
    const invoices = (await get(`/accounts/${org.id}/invoices`, shop.keys.read)).json().data;
    expect(invoices).toEqual([
      expect.objectContaining({ id: order.invoiceId, amountCents: 7500, amount: 75, status: 'open' }),
    ]);
    const events = await listEvents(t.deps.db, shop.tenantId, 'invoice.created');
    expect(events.map((e) => (e.payload as { resourceId: string }).resourceId)).toEqual([order.invoiceId]);
    // Changing the order's items later does not change the invoice.
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/orders/${order.id}`,
      headers: bearer(shop.keys.commerce),
      payload: { items: [{ productId: p.id, quantity: 1 }] },
    });
    expect(patched.json().data).toMatchObject({ totalCents: 2500, invoiceId: order.invoiceId });
    expect((await get(`/accounts/${org.id}/invoices`, shop.keys.read)).json().data[0].amountCents).toBe(7500);
  });

  it('502 billing_unavailable on an outage, with no order, event or invoice', async () => {
    const p = await adminPost(t, shop, 'products', oneTime());
    const before = await orderCount(shop);
    faults.failAll = true;
    const res = await post({ organizationId: org.id, items: [{ productId: p.id }] }, shop.keys.commerce);
    faults.failAll = false;
    expect(res.statusCode).toBe(502);
    expect(errorBody(res).code).toBe('billing_unavailable');
    expect(await orderCount(shop)).toBe(before);
    expect((await listEvents(t.deps.db, shop.tenantId, 'order.created')).length).toBe(before);
  });
});

describe('orders: numbering and PATCH', () => {
  it('numbers orders uniquely and increasingly under concurrency; lists newest first with filters', async () => {
    const shop = await createTestTenant(t.deps);
    const p = await adminPost(t, shop, 'products', oneTime());
    const contactId = '01900000-0000-7000-8000-0000000000c2';
    const results = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        post({ items: [{ productId: p.id }], ...(i % 3 === 0 ? { contactId } : {}) }, shop.keys.commerce),
      ),
    );
    expect(results.every((r) => r.statusCode === 201)).toBe(true);
    const numbers = results.map((r) => Number(r.json().data.orderNumber.slice(4)));
    expect(new Set(numbers).size).toBe(15);
    const list = (await get('/orders', shop.keys.read)).json().data as {
      orderNumber: string;
      createdAt: string;
    }[];
    expect(list).toHaveLength(15);
    const seq = list.map((o) => Number(o.orderNumber.slice(4)));
    expect([...seq].sort((a, b) => b - a)).toEqual(seq);
    expect((await get(`/orders?contactId=${contactId}`, shop.keys.read)).json().data).toHaveLength(5);
    expect((await get('/orders?status=draft', shop.keys.read)).json().data).toHaveLength(10);
    expect(
      (await get('/orders', tenant.keys.read))
        .json()
        .data.some((o: { id: string }) => list.some((x) => (x as { id?: string }).id === o.id)),
    ).toBe(false);
  });

  it('PATCH: policies first, exact audit diff, one event, 404 across tenants', async () => {
    const shop = await createTestTenant(t.deps);
    const p = await adminPost(t, shop, 'products', oneTime());
    const order = (
      await post(
        { contactId: '01900000-0000-7000-8000-0000000000c3', items: [{ productId: p.id }] },
        shop.keys.commerce,
      )
    ).json().data;
    const patch = (payload: object, key = shop.keys.commerce) =>
      api(t, key).patch(`/orders/${order.id}`, payload);
    const res = await patch({ status: 'confirmed' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.status).toBe('confirmed');
    const audit = (
      await get(`/audit-logs?resourceId=${order.id}&action=order.update`, shop.keys.admin)
    ).json().data;
    expect(audit).toHaveLength(1);
    expect(audit[0].details).toMatchObject({ before: { status: 'pending' }, after: { status: 'confirmed' } });
    expect((await listEvents(t.deps.db, shop.tenantId, 'order.updated')).length).toBe(1);
    await adminPost(t, shop, 'policies', {
      name: 'Fulfilled is final',
      type: 'order_update',
      effect: 'block',
      condition: { '==': [{ var: 'order.status' }, 'fulfilled'] },
    });
    expect((await patch({ status: 'fulfilled' })).statusCode).toBe(200);
    const blocked = await patch({ status: 'cancelled' });
    expect(blocked.statusCode).toBe(403);
    expect(errorBody(blocked).code).toBe('policy_blocked');
    expect((await get(`/orders/${order.id}`, shop.keys.read)).json().data.status).toBe('fulfilled');
    expect((await listEvents(t.deps.db, shop.tenantId, 'order.updated')).length).toBe(2);
    const other = await createTestTenant(t.deps);
    expect((await patch({ status: 'x' }, other.keys.commerce)).statusCode).toBe(404);
    expect((await get(`/orders/${order.id}`, other.keys.read)).statusCode).toBe(404);
    expect(errorBody(await patch({ status: 's'.repeat(51) })).details?.[0]).toMatchObject({
      field: 'status',
      rule: 'maxLength',
    });
    expect((await patch({ status: 'x' }, shop.keys.read)).statusCode).toBe(403);
  });
});

describe('orders: from a cart', () => {
  const newCart = async (tn: TestTenant, productId: string, quantity = 2) => {
    const cart = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/carts',
        headers: bearer(tn.keys.commerce),
        payload: {},
      })
    ).json().data;
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/carts/${cart.id}/items`,
      headers: bearer(tn.keys.commerce),
      payload: { productId, quantity },
    });
    return cart.id as string;
  };

  it('refuses what the cart decides sent beside cartId (items, customerContext, another currency): 400, cart left active', async () => {
    const shop = await createTestTenant(t.deps);
    const p = await adminPost(t, shop, 'products', oneTime());
    const cartId = await newCart(shop, p.id, 1);
    for (const [extra, field] of [
      [{ items: [{ productId: p.id, quantity: 9 }] }, 'items'],
      [{ customerContext: { segment: 'vip' } }, 'customerContext'],
      [{ currency: 'EUR' }, 'currency'],
    ] as const) {
      const res = await post({ cartId, ...extra }, shop.keys.commerce);
      expect(res.statusCode, field).toBe(400);
      expect(errorBody(res).details?.[0]).toMatchObject({ field, rule: 'cart' });
    }
    expect((await get(`/carts/${cartId}`, shop.keys.read)).json().data.status).toBe('active');
    const ok = await post({ cartId, currency: 'USD' }, shop.keys.commerce);
    expect(ok.statusCode).toBe(201);
  });

  it('takes the cart’s lines, offers and promo; the cart becomes checked_out; the promo is redeemed', async () => {
    const shop = await createTestTenant(t.deps);
    const p = await adminPost(t, shop, 'products', oneTime());
    await adminPost(t, shop, 'offers', {
      name: 'Launch',
      productId: p.id,
      discountType: 'percent',
      percentOff: 10,
      startsAt: '2020-01-01T00:00:00Z',
    });
    await adminPost(t, shop, 'promotions', {
      code: 'TAKE5',
      name: 'Five off',
      discountType: 'amount',
      amountOffCents: 500,
      currency: 'USD',
      usageLimit: 1,
    });
    const cartId = await newCart(shop, p.id, 4);
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/carts/${cartId}/promo`,
      headers: bearer(shop.keys.commerce),
      payload: { code: 'take5' },
    });
    const cart = (await get(`/carts/${cartId}`, shop.keys.read)).json().data;
    expect(cart.totalCents).toBe(4 * 2500 - 1000 - 500);
    const res = await post({ cartId }, shop.keys.commerce);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      cartId,
      totalCents: cart.totalCents,
      discountCents: cart.discountCents,
      promoCode: 'TAKE5',
    });
    expect(res.json().data.rulesApplied.promotion).toEqual({ code: 'TAKE5', discountCents: 500 });
    expect((await get(`/carts/${cartId}`, shop.keys.read)).json().data.status).toBe('checked_out');
    expect((await get('/admin/promotions', shop.keys.admin)).json().data[0].timesRedeemed).toBe(1);
    const again = await post({ cartId }, shop.keys.commerce);
    expect(again.statusCode).toBe(409);
    expect(errorBody(again).code).toBe('cart_checked_out');
  });

  it('two concurrent checkouts of one cart make exactly one order', async () => {
    const shop = await createTestTenant(t.deps);
    const p = await adminPost(t, shop, 'products', oneTime());
    const cartId = await newCart(shop, p.id);
    const results = await Promise.all([
      post({ cartId }, shop.keys.commerce),
      post({ cartId }, shop.keys.commerce),
      post({ cartId }, shop.keys.commerce),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    expect(await orderCount(shop)).toBe(1);
    const sameKey = await newCart(shop, p.id);
    const keyed = await Promise.all(
      [1, 2].map(() =>
        post({ cartId: sameKey }, shop.keys.commerce, { 'idempotency-key': `checkout-${sameKey}` }),
      ),
    );
    expect(keyed.map((r) => r.statusCode).every((s) => s === 201 || s === 409)).toBe(true);
    expect(await orderCount(shop)).toBe(2);
  });

  it('meters usage after the response when the tenant opted in; a metering failure never changes the answer', async () => {
    const shop = await createTestTenant(t.deps);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/admin/settings',
      headers: bearer(shop.keys.admin),
      payload: { usageMetering: true },
    });
    const p = await adminPost(t, shop, 'products', oneTime());
    const order = (await post({ cartId: await newCart(shop, p.id, 3) }, shop.keys.commerce)).json().data;
    let rows: { orderId: string; quantity: number }[] = [];
    await waitFor(async () => {
      rows = await t.deps.db.select().from(usageEvents).where(eq(usageEvents.tenantId, shop.tenantId));
      return rows.length > 0;
    }, 'the usage row written');
    expect(rows).toEqual([expect.objectContaining({ orderId: order.id, quantity: 3 })]);
    meterFails = true;
    const failuresBefore = meterFailures;
    const failing = await post({ cartId: await newCart(shop, p.id) }, shop.keys.commerce);
    await waitFor(() => meterFailures > failuresBefore, 'the metering attempt failed');
    meterFails = false;
    expect(failing.statusCode).toBe(201);
    expect(await orderCount(shop)).toBe(2);
  });
});
