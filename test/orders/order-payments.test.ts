import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { ManualClock } from '../../src/clock.js';
import { listEvents } from '../../src/events/outbox.js';
import { paymentSessions } from '../../src/modules/payments/tables.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost } from '../support/catalog-fixtures.js';

// Issue 27, "Orders that know they are paid": an order paid through POST /payments (no billing
// link) or through its invoice knows it (`paymentStatus`), offers no second payment, and refuses
// one (409 order_already_paid); refunds and a provider's reversal move it back.

const workshop = {
  name: 'Workshop',
  type: 'one_time',
  currency: 'USD',
  charges: [{ name: 'Seat', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 2500 }] }],
};
const CONTACT = '01900000-0000-7000-8000-0000000000c7';

let t: TestApp;
let shop: TestTenant;
let productId: string;
const clock = new ManualClock(new Date('2031-02-01T00:00:00Z'));

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps);
  productId = (await adminPost(t, shop, 'products', workshop)).id;
});
afterAll(() => t.app.close());

const call = (method: 'GET' | 'POST' | 'PATCH', url: string, key: string, payload?: object, headers = {}) =>
  api(t, key).send(method, url, payload, { headers });
/** An order of `quantity` workshops (2,500 each) for a contact: no billing link, no invoice. */
const newOrder = async (who = shop, quantity = 2, product = productId) => {
  const res = await call('POST', '/orders', who.keys.commerce, {
    contactId: CONTACT,
    items: [{ productId: product, quantity }],
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; totalCents: number };
};
const readOrder = async (id: string, who = shop) =>
  (await call('GET', `/orders/${id}`, who.keys.read)).json();
const pay = (orderId: string, amountCents: number, who = shop, headers = {}) =>
  call(
    'POST',
    '/payments',
    who.keys.commerce,
    { accountId: 'cust_1', amountCents, currency: 'USD', orderId },
    headers,
  );
const complete = (sessionId: string, who = shop) =>
  call('POST', `/payments/${sessionId}/complete`, who.keys.commerce, {});
const orderEvents = async (type: 'order.paid' | 'order.refunded', orderId: string, who = shop) =>
  (await listEvents(t.deps.db, who.tenantId, type)).filter(
    (e) => (e.payload as { id: string }).id === orderId,
  );
const sessionsOf = async (orderId: string, who = shop) =>
  t.deps.db
    .select()
    .from(paymentSessions)
    .where(and(eq(paymentSessions.tenantId, who.tenantId), eq(paymentSessions.orderId, orderId)));
const rels = (body: { nextActions: { rel: string }[] }) => body.nextActions.map((a) => a.rel);

describe('orders that know they are paid: payments', () => {
  it('pays an order through POST /payments {orderId}: the order is paid, offers no payment, refuses a second (409, nothing created)', async () => {
    const order = await newOrder();
    const created = await pay(order.id, 5000);
    expect(created.statusCode, created.body).toBe(201);
    const session = created.json().data;
    expect(session).toMatchObject({ orderId: order.id, status: 'pending', reversal: null });
    let read = await readOrder(order.id);
    expect(read.data).toMatchObject({
      paymentStatus: 'unpaid',
      paidCents: 0,
      payments: [{ id: session.id, amountCents: 5000, status: 'pending', refundedCents: 0, reversed: false }],
    });
    // The open session covers the total: the way on is that session, not a second one.
    expect(rels(read)).not.toContain('createPaymentSession');
    expect(rels(read)).toContain('openPayment');

    expect((await complete(session.id)).statusCode).toBe(200);
    read = await readOrder(order.id);
    expect(read.data).toMatchObject({ paymentStatus: 'paid', paidCents: 5000, refundedCents: 0 });
    expect(rels(read)).toEqual(['self', 'update']);
    expect(await orderEvents('order.paid', order.id)).toHaveLength(1);

    const eventsBefore = (await listEvents(t.deps.db, shop.tenantId, 'payment.session_created')).length;
    const again = await pay(order.id, 100);
    expect(again.statusCode).toBe(409);
    expect(errorBody(again)).toMatchObject({
      code: 'order_already_paid',
      details: [{ field: 'orderId', rule: 'unpaid' }],
    });
    expect(await sessionsOf(order.id)).toHaveLength(1);
    expect(await listEvents(t.deps.db, shop.tenantId, 'payment.session_created')).toHaveLength(eventsBefore);
    // Listed by payment status.
    const paid = (await call('GET', '/orders?paymentStatus=paid', shop.keys.read)).json().data;
    expect(paid.map((o: { id: string }) => o.id)).toContain(order.id);
    const unpaid = (await call('GET', '/orders?paymentStatus=unpaid', shop.keys.read)).json().data;
    expect(unpaid.map((o: { id: string }) => o.id)).not.toContain(order.id);
    const bad = await call('GET', '/orders?paymentStatus=settled', shop.keys.read);
    expect(errorBody(bad).details?.[0]).toMatchObject({ field: 'query.paymentStatus' });
  });

  it('a partial payment leaves partially_paid and offers the rest; more than the rest is 400 naming amountCents', async () => {
    const order = await newOrder(shop, 4); // 10,000
    const first = (await pay(order.id, 4000)).json().data;
    expect((await complete(first.id)).statusCode).toBe(200);
    const read = await readOrder(order.id);
    expect(read.data).toMatchObject({ paymentStatus: 'partially_paid', paidCents: 4000 });
    const offer = read.nextActions.find((a: { rel: string }) => a.rel === 'createPaymentSession');
    expect(offer.arguments).toEqual({ amountCents: 6000, currency: 'USD', orderId: order.id });
    const over = await pay(order.id, 6001);
    expect(over.statusCode).toBe(400);
    expect(errorBody(over).details?.[0]).toMatchObject({ field: 'amountCents', rule: 'maximum' });
    expect(await orderEvents('order.paid', order.id)).toHaveLength(0);
    const rest = (await pay(order.id, 6000)).json().data;
    expect((await complete(rest.id)).statusCode).toBe(200);
    expect((await readOrder(order.id)).data).toMatchObject({ paymentStatus: 'paid', paidCents: 10_000 });
    expect(await orderEvents('order.paid', order.id)).toHaveLength(1);
  });

  it('400 naming orderId for an unknown order or another tenant’s, with nothing created', async () => {
    const other = await createTestTenant(t.deps);
    const theirs = await newOrder(other, 1, (await adminPost(t, other, 'products', workshop)).id);
    for (const orderId of [theirs.id, '01900000-0000-7000-8000-00000000dead']) {
      const res = await pay(orderId, 100);
      expect(res.statusCode).toBe(400);
      expect(errorBody(res).details?.[0]).toMatchObject({ field: 'orderId', rule: 'exists' });
    }
    expect(await sessionsOf(theirs.id, other)).toHaveLength(0);
    expect(await sessionsOf(theirs.id)).toHaveLength(0);
    const wrongCurrency = await call('POST', '/payments', shop.keys.commerce, {
      accountId: 'cust_1',
      amountCents: 100,
      currency: 'EUR',
      orderId: (await newOrder()).id,
    });
    expect(errorBody(wrongCurrency).details?.[0]).toMatchObject({ field: 'currency', rule: 'matches' });
  });
});

describe('orders that know they are paid: concurrency, refunds and reversals', () => {
  it('two concurrent POST /payments for the whole order with different keys: one session, never more than the total', async () => {
    const order = await newOrder();
    const answers = await Promise.all([
      pay(order.id, 5000, shop, { 'idempotency-key': 'pay-a' }),
      pay(order.id, 5000, shop, { 'idempotency-key': 'pay-b' }),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
    const refused = answers.find((a) => a.statusCode === 409);
    expect(errorBody(refused as (typeof answers)[number])).toMatchObject({
      code: 'conflict',
      details: [{ field: 'orderId', rule: 'covered' }],
    });
    const sessions = await sessionsOf(order.id);
    expect(sessions).toHaveLength(1);
    expect((await complete(sessions[0]?.id as string)).statusCode).toBe(200);
    expect((await readOrder(order.id)).data).toMatchObject({ paymentStatus: 'paid', paidCents: 5000 });
    expect(await orderEvents('order.paid', order.id)).toHaveLength(1);
  });

  it('refunds move it to partially_refunded then refunded, each with order.refunded in the refund’s unit', async () => {
    const order = await newOrder();
    const session = (await pay(order.id, 5000)).json().data;
    await complete(session.id);
    const refund = (amountCents: number) =>
      call('POST', `/payments/${session.id}/refunds`, shop.keys.commerce, {
        amountCents,
        reason: 'requested_by_customer',
      });
    expect((await refund(2000)).statusCode).toBe(201);
    expect((await readOrder(order.id)).data).toMatchObject({
      paymentStatus: 'partially_refunded',
      paidCents: 5000,
      refundedCents: 2000,
    });
    expect(await orderEvents('order.refunded', order.id)).toHaveLength(1);
    expect((await refund(3000)).statusCode).toBe(201);
    const read = await readOrder(order.id);
    expect(read.data).toMatchObject({ paymentStatus: 'refunded', refundedCents: 5000 });
    expect(rels(read)).toEqual(['self', 'update']);
    expect(await orderEvents('order.refunded', order.id)).toHaveLength(2);
    expect((await pay(order.id, 100)).statusCode).toBe(409);
  });

  it('a provider failure after success keeps the session success with its reversal; the order is unpaid again', async () => {
    expect(
      (await call('PUT' as 'POST', '/admin/payment-provider', shop.keys.admin, { provider: 'sandbox' }))
        .statusCode,
    ).toBe(200);
    const order = await newOrder();
    const session = (await pay(order.id, 5000)).json().data;
    await complete(session.id);
    const simulated = await call('POST', '/admin/payment-provider/simulate', shop.keys.admin, {
      paymentSessionId: session.id,
      outcome: 'failed',
    });
    expect(simulated.json().data.delivery.body).toMatchObject({
      applied: true,
      reversed: true,
      status: 'success',
    });
    const read = (await call('GET', `/payments/${session.id}`, shop.keys.read)).json().data;
    expect(read).toMatchObject({
      status: 'success',
      reversal: { reason: 'card_declined', providerReference: expect.stringMatching(/^provider:evt_/) },
    });
    const after = await readOrder(order.id);
    expect(after.data).toMatchObject({ paymentStatus: 'unpaid', paidCents: 0 });
    expect(after.data.payments).toEqual([expect.objectContaining({ id: session.id, reversed: true })]);
    expect(rels(after)).toContain('createPaymentSession');
    const reversed = (await listEvents(t.deps.db, shop.tenantId, 'payment.reversed')).filter(
      (e) => (e.payload as { id: string }).id === session.id,
    );
    expect(reversed).toHaveLength(1);
    const refund = await call('POST', `/payments/${session.id}/refunds`, shop.keys.commerce, {
      reason: 'requested_by_customer',
    });
    expect(errorBody(refund).code).toBe('payment_not_refundable');
  });
});

describe('orders that know they are paid: an invoiced order (billing-linked owner)', () => {
  let billed: TestTenant;
  let org: { id: string };
  let billingId: string;
  let billedProduct: string;

  beforeAll(async () => {
    billed = await createTestTenant(t.deps);
    await call('PUT' as 'POST', '/admin/billing-integration', billed.keys.admin, { adapter: 'builtin' });
    await call('PUT' as 'POST', '/admin/payment-provider', billed.keys.admin, { provider: 'sandbox' });
    billingId = (
      await new BuiltinBilling(t.deps.db, t.deps.clock, billed.tenantId).createAccount({
        name: 'Initech',
        currency: 'USD',
      })
    ).id;
    org = (
      await call('POST', '/accounts', billed.keys.commerce, { name: 'Initech', externalId: billingId })
    ).json().data;
    billedProduct = (await adminPost(t, billed, 'products', workshop)).id;
  });

  it('is paid through its invoice (no orderId needed), then refuses a session; a reversal reopens both', async () => {
    const order = (
      await call('POST', '/orders', billed.keys.commerce, {
        organizationId: org.id,
        items: [{ productId: billedProduct, quantity: 2 }],
      })
    ).json().data;
    expect(order).toMatchObject({ paymentStatus: 'unpaid', invoiceId: expect.stringMatching(/^in_/) });
    const paid = await call('POST', `/invoices/${order.invoiceId}/pay`, billed.keys.commerce, {
      accountId: billingId,
      amountCents: 5000,
      currency: 'USD',
    });
    expect(paid.statusCode, paid.body).toBe(201);
    const session = paid.json().data;
    expect(session.orderId).toBe(order.id);
    expect((await complete(session.id, billed)).statusCode).toBe(200);
    const read = await readOrder(order.id, billed);
    expect(read.data).toMatchObject({ paymentStatus: 'paid', paidCents: 5000 });
    expect(rels(read)).toEqual(['self', 'update']);
    expect(await orderEvents('order.paid', order.id, billed)).toHaveLength(1);
    const again = await pay(order.id, 5000, billed);
    expect(errorBody(again).code).toBe('order_already_paid');

    const simulated = await call('POST', '/admin/payment-provider/simulate', billed.keys.admin, {
      paymentSessionId: session.id,
      outcome: 'failed',
    });
    expect(simulated.json().data.delivery.body).toMatchObject({ applied: true, reversed: true });
    const invoice = (await call('GET', `/accounts/${org.id}/invoices`, billed.keys.read)).json().data[0];
    expect(invoice).toMatchObject({ id: order.invoiceId, status: 'open', balanceCents: 5000 });
    const reopened = await readOrder(order.id, billed);
    expect(reopened.data).toMatchObject({ paymentStatus: 'unpaid', paidCents: 0 });
    expect(rels(reopened)).toContain('payInvoice');
  });
});
