import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { MAX_TOTAL_CENTS } from '../../src/core/money.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api, type Method } from '../support/api.js';
import { linkedBillingAccount } from '../support/billing-fixtures.js';
import { adminPost, perSeat } from '../support/catalog-fixtures.js';

// "No 5xx from bad numbers": money and quantities are bigint columns; amounts past 2^31 are
// stored and read back exactly; a computed amount past MAX_TOTAL_CENTS is 400 naming the input
// that made it, with nothing written and nothing billed; instants a timestamp cannot hold are 400.

const BIG = 1_000_000_000; // the largest unit price: x3 passes 2^31

describe('numbers past 2^31, and past what we hold', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let engine: BuiltinBilling;
  let billingId: string;
  let orgId: string;
  const contactId = '01900000-0000-7000-8000-0000000000c1';

  const call = (method: string, url: string, key: string, payload?: object) =>
    api(t, key).send(method as Method, url, payload);

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    ({ engine, billingId, orgId } = await linkedBillingAccount(t, tenant, 'Big'));
  });
  afterAll(() => t.app.close());

  it('stores and reads back order totals past 2^31 (POST and PATCH)', async () => {
    const created = await call('POST', '/orders', tenant.keys.commerce, {
      contactId,
      totalCents: 2_147_483_648,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.totalCents).toBe(2_147_483_648);
    const id = created.json().data.id;
    const patched = await call('PATCH', `/orders/${id}`, tenant.keys.commerce, { totalCents: 9_007_199_254 });
    expect(patched.statusCode, patched.body).toBe(200);
    const read = await call('GET', `/orders/${id}`, tenant.keys.read);
    expect(read.json().data.totalCents).toBe(9_007_199_254);
  });

  it('refuses a total hint above the documented maximum with 400 naming it', async () => {
    for (const totalCents of [MAX_TOTAL_CENTS + 1, 2 ** 53 + 1, 1e308]) {
      const res = await call('POST', '/orders', tenant.keys.commerce, { contactId, totalCents });
      expect(res.statusCode).toBe(400);
      expect(errorBody(res).details?.[0]).toMatchObject({ field: 'totalCents' });
    }
  });

  /** A one-time product at the largest unit price. */
  const oneTimeAtMaximum = (name: string) =>
    adminPost(t, tenant, 'products', {
      ...perSeat(name, BIG),
      type: 'one_time',
      billingInterval: null,
      family: null,
    });

  it('a cart line at 1,000,000,000 x 3 is priced and checked out exactly', async () => {
    const product = await oneTimeAtMaximum('Big one-time');
    const cart = (await call('POST', '/carts', tenant.keys.commerce, { currency: 'USD' })).json().data;
    const added = await call('POST', `/carts/${cart.id}/items`, tenant.keys.commerce, {
      productId: product.id,
      quantity: 3,
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().data.totalCents).toBe(3 * BIG);
    const order = await call('POST', '/orders', tenant.keys.commerce, { cartId: cart.id, contactId });
    expect(order.statusCode, order.body).toBe(201);
    expect(order.json().data.totalCents).toBe(3 * BIG);
  });

  it('a line or cart past the maximum is 400 naming quantity, and the cart is unchanged', async () => {
    const product = await oneTimeAtMaximum('Huge one-time');
    const cart = (await call('POST', '/carts', tenant.keys.commerce, { currency: 'USD' })).json().data;
    const tooMany = await call('POST', `/carts/${cart.id}/items`, tenant.keys.commerce, {
      productId: product.id,
      quantity: 100_000, // 10^14 cents
    });
    expect(tooMany.statusCode).toBe(400);
    expect(errorBody(tooMany).details?.[0]).toMatchObject({ field: 'quantity', rule: 'maximum' });
    const read = await call('GET', `/carts/${cart.id}`, tenant.keys.read);
    expect(read.json().data.items).toEqual([]);
    // Inline order lines: the field is the line's quantity.
    const inline = await call('POST', '/orders', tenant.keys.commerce, {
      contactId,
      items: [{ productId: product.id, quantity: 100_000 }],
    });
    expect(inline.statusCode).toBe(400);
    expect(errorBody(inline).details?.[0]).toMatchObject({ field: 'items.0.quantity', rule: 'maximum' });
  });

  it('a subscription priced past 2^31 is provisioned exactly; one past the maximum bills nothing', async () => {
    const plan = await adminPost(t, tenant, 'products', perSeat('Big plan', BIG, { family: 'big' }));
    const created = await call('POST', '/subscriptions', tenant.keys.commerce, {
      productId: plan.id,
      quantity: 3,
      organizationId: orgId,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.priceCents).toBe(3 * BIG);
    const billed = await engine.listSubscriptions(billingId);
    if (!billed.ok) throw new Error('list');
    expect(billed.value.find((s) => s.id === created.json().data.billingSubscriptionId)).toMatchObject({
      quantity: 3,
      priceCents: 3 * BIG,
    });

    const before = billed.value.length;
    const tooBig = await call('POST', '/subscriptions', tenant.keys.commerce, {
      productId: plan.id,
      quantity: 100_000,
      organizationId: orgId,
    });
    expect(tooBig.statusCode).toBe(400);
    expect(errorBody(tooBig).details?.[0]).toMatchObject({ field: 'quantity', rule: 'maximum' });
    const after = await engine.listSubscriptions(billingId);
    expect(after.ok && after.value.length).toBe(before);
  });

  it('an operator invoice past the maximum is 400 naming the line', async () => {
    const res = await call('POST', `/admin/billing/accounts/${billingId}/invoices`, tenant.keys.admin, {
      lines: [{ description: 'x', quantity: 1_000_000, unitAmountCents: BIG }],
    });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details?.[0]).toMatchObject({ field: 'lines.0.quantity', rule: 'maximum' });
  });

  it('audit-log instants a timestamp cannot hold are 400 naming the parameter', async () => {
    for (const since of ['9999-12-31T23:59:60Z', '0000-01-01T00:00:00Z']) {
      const res = await call('GET', `/audit-logs?since=${encodeURIComponent(since)}`, tenant.keys.admin);
      expect(res.statusCode, since).toBe(400);
      expect(errorBody(res).details?.[0]).toMatchObject({ field: 'query.since' });
    }
    const until = await call(
      'GET',
      `/audit-logs?until=${encodeURIComponent('10000-01-01T00:00:00Z')}`,
      tenant.keys.admin,
    );
    expect(until.statusCode).toBe(400);
    const fine = await call(
      'GET',
      `/audit-logs?since=${encodeURIComponent('9999-12-31T23:59:59Z')}`,
      tenant.keys.admin,
    );
    expect(fine.statusCode).toBe(200);
  });
});
