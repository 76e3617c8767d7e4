import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { listEvents } from '../../src/events/outbox.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { type AcpCatalog, acpCatalog, acpClient, delegation, paidWith } from './acp-client.js';

// Completions racing over HTTP: one session completed by two requests at once (another key each)
// makes one order, one payment and one of each event; one token tried on two sessions at once pays
// once. What a completion leaves is a normal order, paid, and a normal payment session.

let t: TestApp;
let shop: TestTenant;
let catalog: AcpCatalog;
const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps);
  catalog = await acpCatalog(t, shop);
});
afterAll(async () => {
  await t.app.close();
});

const read = (path: string) =>
  t.app.inject({
    method: 'GET',
    url: `/api/v1${path}`,
    headers: { authorization: `Bearer ${shop.keys.read}` },
  });

async function readySession() {
  const agent = acpClient(t, shop.keys.commerce);
  const res = await agent.create({ currency: 'usd', line_items: [{ id: catalog.ebook.id, quantity: 2 }] });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json().status).toBe('ready_for_payment');
  return res.json().id as string;
}

async function tokenFor(sessionId: string, maxAmount: number) {
  const res = await acpClient(t, shop.keys.commerce).delegate(
    delegation(sessionId, shop.tenantId, maxAmount, clock),
  );
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

const eventsAbout = async (type: Parameters<typeof listEvents>[2], key: string, id: string) =>
  (await listEvents(t.deps.db, shop.tenantId, type)).filter(
    (e) => (e.payload as Record<string, unknown>)[key] === id,
  );

describe('ACP completions racing', () => {
  it('two completions of one session at once: one order, paid; one payment session; each event once', async () => {
    const id = await readySession();
    const token = await tokenFor(id, 1800);
    const agent = acpClient(t, shop.keys.commerce);
    const answers = await Promise.all([
      agent.complete(id, paidWith(token)),
      agent.complete(id, paidWith(token)),
    ]);
    const won = answers.filter((a) => a.statusCode === 200);
    expect(won, answers.map((a) => a.body).join('\n')).toHaveLength(1);
    const lost = answers.find((a) => a.statusCode !== 200);
    expect([400, 409]).toContain(lost?.statusCode);
    expect(lost?.json().type).toBe('invalid_request');
    const orderId = won[0]?.json().order.id as string;

    const order = (await read(`/orders/${orderId}`)).json().data;
    expect(order).toMatchObject({
      paymentStatus: 'paid',
      paidCents: 1800,
      totalCents: 1800,
      checkoutSessionId: id,
    });
    expect(order.payments).toHaveLength(1);
    const payment = (await read(`/payments/${order.payments[0].id}`)).json().data;
    expect(payment).toMatchObject({ status: 'success', orderId, amountCents: 1800, currency: 'USD' });
    expect(await eventsAbout('order.created', 'id', orderId)).toHaveLength(1);
    expect(await eventsAbout('order.paid', 'id', orderId)).toHaveLength(1);
    expect(await eventsAbout('payment.succeeded', 'orderId', orderId)).toHaveLength(1);
    const merchant = (await read(`/checkout-sessions/${id}`)).json().data;
    expect(merchant).toMatchObject({ status: 'completed', orderId, paymentSessionId: payment.id });
  });

  it('one token on two sessions at once pays one of them', async () => {
    const first = await readySession();
    const second = await readySession();
    // A token is bound to one session: the other is refused before any race.
    const token = await tokenFor(first, 1800);
    const agent = acpClient(t, shop.keys.commerce);
    const [a, b] = await Promise.all([
      agent.complete(first, paidWith(token)),
      agent.complete(second, paidWith(token)),
    ]);
    expect(a.statusCode, a.body).toBe(200);
    expect(b.statusCode).toBe(400);
    expect(b.json()).toMatchObject({
      type: 'invalid_request',
      param: '$.payment_data.instrument.credential.token',
    });
    expect((await acpClient(t, shop.keys.read).get(second)).json().status).toBe('ready_for_payment');
  });
});
