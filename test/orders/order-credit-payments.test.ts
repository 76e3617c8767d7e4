import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { FaultController, withFaults } from '../../src/billing/index.js';
import { ManualClock } from '../../src/clock.js';
import { listEvents } from '../../src/events/outbox.js';
import { reconcileIntents } from '../../src/unit-of-work/index.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost } from '../support/catalog-fixtures.js';

// Issue 27, "Orders that know they are paid": credit applied to an order's invoice pays the
// order like a payment does, in the credit application's own unit of work, whichever path
// applies it: `POST /invoices/{id}/apply-credit`, credit on issue in the order's create request,
// or the reconciler finishing a credit on issue the request could not.

const workshop = {
  name: 'Workshop',
  type: 'one_time',
  currency: 'USD',
  charges: [{ name: 'Seat', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 2500 }] }],
};

describe('orders paid by credit', () => {
  let t: TestApp;
  const clock = new ManualClock(new Date('2031-03-01T10:00:00.000Z'));
  const faults = new FaultController();
  let shop: TestTenant;
  let org: { id: string };
  let productId: string;

  beforeAll(async () => {
    t = await startApp({ clock, wrapBilling: (a) => withFaults(a, faults) });
  });
  afterAll(() => t.app.close());
  beforeEach(async () => {
    clock.set(new Date('2031-03-01T10:00:00.000Z'));
    faults.reset();
    shop = await createTestTenant(t.deps);
    await call('PUT', '/admin/billing-integration', shop.keys.admin, { adapter: 'builtin' });
    await call('PUT', '/admin/payment-provider', shop.keys.admin, { provider: 'sandbox' });
    const engine = new BuiltinBilling(t.deps.db, clock, shop.tenantId);
    const billingId = (await engine.createAccount({ name: 'Initech', currency: 'USD' })).id;
    org = (
      await call('POST', '/accounts', shop.keys.commerce, { name: 'Initech', externalId: billingId })
    ).json().data;
    productId = (await adminPost(t, shop, 'products', workshop)).id;
  });

  const call = (
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    key: string,
    payload?: object,
    headers: Record<string, string> = {},
  ) => api(t, key).send(method, url, payload, { headers });
  const grant = async (amountCents: number) => {
    const res = await call('POST', `/accounts/${org.id}/credits`, shop.keys.admin, {
      amountCents,
      currency: 'USD',
      reason: 'goodwill',
    });
    expect(res.statusCode, res.body).toBe(201);
  };
  /** An order of two workshops (5,000) for the billing-linked account: invoiced at once. */
  const createOrder = (headers: Record<string, string> = {}) =>
    call(
      'POST',
      '/orders',
      shop.keys.commerce,
      { organizationId: org.id, items: [{ productId, quantity: 2 }] },
      headers,
    );
  const newOrder = async () => {
    const res = await createOrder();
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string; invoiceId: string; paymentStatus: string };
  };
  const readOrder = async (id: string) => (await call('GET', `/orders/${id}`, shop.keys.read)).json();
  const applyCredit = (invoiceId: string) =>
    call('POST', `/invoices/${invoiceId}/apply-credit`, shop.keys.commerce, {});
  const paidEvents = async (orderId: string) =>
    (await listEvents(t.deps.db, shop.tenantId, 'order.paid')).filter(
      (e) => (e.payload as { id: string }).id === orderId,
    );
  type Action = { rel: string; arguments?: { amountCents?: number } };
  const rels = (body: { nextActions: Action[] }) => body.nextActions.map((a) => a.rel);
  const payInvoiceAction = (body: { nextActions: Action[] }) =>
    body.nextActions.find((a) => a.rel === 'payInvoice');

  it('apply-credit paying the invoice in full pays the order: no payment action, 409 order_already_paid, order.paid once', async () => {
    const order = await newOrder();
    expect(order.paymentStatus).toBe('unpaid');
    await grant(5000);
    const applied = await applyCredit(order.invoiceId);
    expect(applied.statusCode, applied.body).toBe(200);
    expect(applied.json().data.invoice).toMatchObject({ balanceCents: 0, status: 'paid' });

    const read = await readOrder(order.id);
    expect(read.data).toMatchObject({ paymentStatus: 'paid', paidCents: 5000, refundedCents: 0 });
    expect(rels(read)).toEqual(['self', 'update']);
    const again = await call('POST', '/payments', shop.keys.commerce, {
      accountId: org.id,
      amountCents: 5000,
      currency: 'USD',
      orderId: order.id,
    });
    expect(again.statusCode).toBe(409);
    expect(errorBody(again).code).toBe('order_already_paid');
    expect(await paidEvents(order.id)).toHaveLength(1);
    const listed = (await call('GET', '/orders?paymentStatus=paid', shop.keys.read)).json().data;
    expect(listed.map((o: { id: string }) => o.id)).toEqual([order.id]);

    // Nothing more to apply: refused, and the order is paid once.
    await grant(100);
    expect(errorBody(await applyCredit(order.invoiceId)).code).toBe('invoice_not_open');
    expect(await paidEvents(order.id)).toHaveLength(1);
  });

  it('apply-credit paying part of the invoice leaves partially_paid and offers the rest; the rest by credit pays it', async () => {
    const order = await newOrder();
    await grant(2000);
    expect((await applyCredit(order.invoiceId)).statusCode).toBe(200);
    const part = await readOrder(order.id);
    expect(part.data).toMatchObject({ paymentStatus: 'partially_paid', paidCents: 2000 });
    expect(payInvoiceAction(part)?.arguments).toMatchObject({ amountCents: 3000, currency: 'USD' });
    expect(await paidEvents(order.id)).toHaveLength(0);

    await grant(4000);
    expect((await applyCredit(order.invoiceId)).statusCode).toBe(200);
    expect((await readOrder(order.id)).data).toMatchObject({ paymentStatus: 'paid', paidCents: 5000 });
    expect(await paidEvents(order.id)).toHaveLength(1);
  });

  it('credit on issue covering the invoice makes the new order paid in its create response, and in its replay', async () => {
    await grant(6000);
    const headers = { 'idempotency-key': 'order-paid-by-credit' };
    const created = await createOrder(headers);
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body.data).toMatchObject({ paymentStatus: 'paid', paidCents: 5000 });
    expect(rels(body)).toEqual(['self', 'update']);
    const replay = await createOrder(headers);
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(replay.json()).toEqual(body);

    expect((await readOrder(body.data.id)).data).toMatchObject({ paymentStatus: 'paid', paidCents: 5000 });
    expect(await paidEvents(body.data.id)).toHaveLength(1);
    const credits = (await call('GET', `/accounts/${org.id}/credits`, shop.keys.read)).json().data;
    expect(credits.balances).toEqual([expect.objectContaining({ currency: 'USD', balanceCents: 1000 })]);
  });

  it('credit on issue covering part of the invoice: the new order is partially_paid and offers the rest', async () => {
    await grant(1500);
    const created = await createOrder();
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body.data).toMatchObject({ paymentStatus: 'partially_paid', paidCents: 1500 });
    expect(payInvoiceAction(body)?.arguments).toMatchObject({ amountCents: 3500 });
    expect(await paidEvents(body.data.id)).toHaveLength(0);
  });

  it('credit on issue the request could not apply is applied by the reconciler, and the order ends paid', async () => {
    await grant(5000);
    faults.only = ['applyCredit'];
    faults.loseNext = 1;
    const created = await createOrder();
    expect(created.statusCode, created.body).toBe(201);
    const order = created.json().data;
    // The application's outcome is unknown: the order says what is known, unpaid.
    expect(order).toMatchObject({ paymentStatus: 'unpaid', paidCents: 0 });

    clock.set(new Date('2031-03-01T10:05:00.000Z'));
    const report = await reconcileIntents(t.deps, { tenantId: shop.tenantId });
    expect(report).toMatchObject({ completed: 1, abandoned: 0 });
    const read = await readOrder(order.id);
    expect(read.data).toMatchObject({ paymentStatus: 'paid', paidCents: 5000 });
    expect(rels(read)).toEqual(['self', 'update']);
    expect(await paidEvents(order.id)).toHaveLength(1);
  });
});
