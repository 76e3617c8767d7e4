import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { systemContext } from '../../src/core/context.js';
import { placeOrder, planOrder } from '../../src/modules/orders/index.js';
import { createSender, DeliveryWorker, type Sender } from '../../src/modules/webhooks/index.js';
import { mintedKey, runUnitOfWork } from '../../src/unit-of-work/index.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost } from '../support/catalog-fixtures.js';
import { type Receipt, type Receiver, startReceiver, TEST_CA_FILE } from '../support/webhook-receiver.js';

// A webhook subscription with `format: "acp"` receives the Agentic Commerce Protocol's order
// webhooks (spec 2026-04-17) for orders made by checkout sessions, instead of our events; a
// native subscription of the same tenant still receives ours.

const logger = pino({ level: 'silent' });
const clock = new ManualClock(new Date('2031-03-01T10:00:00Z'));
const CONTACT = '01900000-0000-7000-8000-0000000000a1';
const jacket = {
  name: 'Rain Jacket',
  type: 'one_time',
  currency: 'USD',
  charges: [{ name: 'Jacket', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 4500 }] }],
};

let t: TestApp;
let sender: Sender;
let tenant: TestTenant;
let acpReceiver: Receiver;
let nativeReceiver: Receiver;
let worker: DeliveryWorker;
let productId: string;

beforeAll(async () => {
  t = await startApp({ clock, config: { webhookAllowPrivateTargets: true, webhookCaFile: TEST_CA_FILE } });
  sender = createSender({ allowPrivateTargets: true, caFile: TEST_CA_FILE });
});
afterAll(async () => {
  await sender.close();
  await t.app.close();
});
beforeEach(async () => {
  tenant = await createTestTenant(t.deps);
  productId = (await adminPost(t, tenant, 'products', jacket)).id;
  acpReceiver = await startReceiver();
  nativeReceiver = await startReceiver();
  worker = new DeliveryWorker(
    {
      db: t.deps.db,
      clock,
      logger,
      keyRing: t.deps.keyRing,
      sender,
      acp: { lookups: t.deps.lookups, publicBaseUrl: 'https://api.shop.example' },
    },
    { concurrency: 4, pollIntervalMs: 60_000, tenantIds: [tenant.tenantId] },
  );
});
afterEach(async () => {
  await acpReceiver.close();
  await nativeReceiver.close();
});

const commerce = () => api(t, tenant.keys.commerce);

async function subscribe(url: string, format?: 'acp' | 'native') {
  const res = await commerce().post('/webhooks', { url, events: ['*'], ...(format ? { format } : {}) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; secret: string; format: string };
}

/**
 * An order placed the way an agentic checkout places it: from the session's cart, with the
 * session's id and the shipping chosen (priced into the total), in a unit of work of its own.
 */
async function checkoutOrder(quantity = 2) {
  const cart = await commerce().post('/carts', { contactId: CONTACT });
  expect(cart.statusCode, cart.body).toBe(201);
  const cartId = cart.json().data.id as string;
  const added = await commerce().post(`/carts/${cartId}/items`, { productId, quantity });
  expect(added.statusCode, added.body).toBe(201);
  const ctx = systemContext(tenant.tenantId, `test-${randomUUID()}`);
  const checkout = {
    sessionId: randomUUID(),
    shipping: {
      optionId: 'standard',
      name: 'Standard shipping',
      amountCents: 500,
      address: {
        name: 'Jane Doe',
        line1: '1 Main St',
        city: 'Springfield',
        region: 'IL',
        postalCode: '62701',
        country: 'US',
      },
    },
  };
  const plan = await planOrder(t.deps, ctx, { cartId }, checkout);
  const created = await runUnitOfWork(t.deps, ctx, mintedKey(), (u) => placeOrder(u, plan, 0));
  return { order: created.order, sessionId: checkout.sessionId };
}

/** ACP's Merchant-Signature checked by hand: `t=<s>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
function merchantSignatureValid(receipt: Receipt, secret: string): boolean {
  const header = String(receipt.headers['merchant-signature']);
  const match = /^t=(\d+),v1=([a-f0-9]{64})$/.exec(header);
  if (!match) return false;
  const [, ts, v1] = match as unknown as [string, string, string];
  if (Math.abs(Number(ts) - clock.now().getTime() / 1000) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${ts}.${receipt.body}`).digest();
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const bodies = (receiver: Receiver) => receiver.receipts.map((r) => JSON.parse(r.body));

describe('acp webhook subscriptions', () => {
  it('is created with format acp (native by default), and can be switched back', async () => {
    const acp = await subscribe(acpReceiver.url, 'acp');
    const native = await subscribe(nativeReceiver.url);
    expect(acp.format).toBe('acp');
    expect(native.format).toBe('native');
    const listed = (await api(t, tenant.keys.read).get('/webhooks')).json().data as { format: string }[];
    expect(listed.map((w) => w.format).sort()).toEqual(['acp', 'native']);
    const patched = await commerce().patch(`/webhooks/${acp.id}`, { format: 'native' });
    expect(patched.json().data.format).toBe('native');
    const refused = await commerce().post('/webhooks', {
      url: acpReceiver.url,
      events: ['*'],
      format: 'ucp',
    });
    expect(refused.statusCode).toBe(400);
  });

  it('sends order_create and order_update with the ACP order, signed with Merchant-Signature; the native subscription gets our events', async () => {
    await api(t, tenant.keys.admin).patch('/seller', {
      supportEmail: 'help@shop.example',
      supportUrl: 'https://shop.example/help',
    });
    const acp = await subscribe(acpReceiver.url, 'acp');
    const native = await subscribe(nativeReceiver.url);
    const { order, sessionId } = await checkoutOrder(2);
    const plain = await commerce().post('/orders', {
      contactId: CONTACT,
      items: [{ productId, quantity: 1 }],
    });
    expect(plain.statusCode, plain.body).toBe(201);
    await worker.drain();
    clock.advance(60_000);
    const shipped = await commerce().patch(`/orders/${order.id}`, { status: 'shipped' });
    expect(shipped.statusCode, shipped.body).toBe(200);
    await worker.drain();

    // ACP: the checkout's order only, created then updated; the plain order not at all.
    expect(bodies(acpReceiver).map((b) => [b.type, b.data.id])).toEqual([
      ['order_create', order.id],
      ['order_update', order.id],
    ]);
    for (const receipt of acpReceiver.receipts) {
      expect(merchantSignatureValid(receipt, acp.secret)).toBe(true);
      expect(merchantSignatureValid(receipt, native.secret)).toBe(false);
      expect(merchantSignatureValid({ ...receipt, body: `${receipt.body} ` }, acp.secret)).toBe(false);
      expect(receipt.headers['content-type']).toBe('application/json');
      expect(receipt.headers['x-webhook-signature']).toBeUndefined();
    }
    const update = JSON.parse(acpReceiver.receipts[1]?.body as string);
    expect(Object.keys(update)).toEqual(['type', 'data']);
    expect(update.data).toEqual({
      type: 'order',
      id: order.id,
      checkout_session_id: sessionId,
      order_number: order.orderNumber,
      permalink_url: `https://api.shop.example/api/v1/orders/${order.id}`,
      status: 'shipped',
      support: { email: 'help@shop.example', help_center_url: 'https://shop.example/help' },
      line_items: [
        {
          id: `li_${productId}`,
          title: 'Rain Jacket',
          product_id: productId,
          quantity: { ordered: 2, current: 2, fulfilled: 2 },
          unit_price: 4500,
          subtotal: 9000,
          status: 'fulfilled',
        },
      ],
      fulfillments: [
        {
          id: `ful_${order.id}`,
          type: 'shipping',
          status: 'shipped',
          line_items: [{ id: `li_${productId}`, quantity: 2 }],
          description: 'Standard shipping',
          destination: {
            name: 'Jane Doe',
            line_one: '1 Main St',
            city: 'Springfield',
            state: 'IL',
            country: 'US',
            postal_code: '62701',
          },
        },
      ],
      adjustments: [],
      totals: [
        { type: 'subtotal', display_text: 'Subtotal', amount: 9000 },
        { type: 'fulfillment', display_text: 'Standard shipping', amount: 500 },
        { type: 'total', display_text: 'Total', amount: 9500 },
      ],
    });
    // The deliveries are logged under the subscription as usual; Request-Id is the delivery's id.
    const logged = (await api(t, tenant.keys.read).get(`/webhooks/${acp.id}/deliveries`)).json().data;
    expect(logged.map((d: { eventType: string; status: string }) => [d.eventType, d.status])).toEqual([
      ['order.updated', 'succeeded'],
      ['order.created', 'succeeded'],
    ]);
    expect(acpReceiver.receipts[1]?.headers['request-id']).toBe(logged[0].id);

    // Native: our bodies, for both orders (sent at once, in any order) and then the update.
    const native3 = bodies(nativeReceiver).map((b) => `${b.event} ${b.data.id}`);
    expect(native3.slice(0, 2).sort()).toEqual(
      [`order.created ${order.id}`, `order.created ${plain.json().data.id}`].sort(),
    );
    expect(native3[2]).toBe(`order.updated ${order.id}`);
    for (const receipt of nativeReceiver.receipts) {
      const hmac = createHmac('sha256', native.secret).update(receipt.body).digest('hex');
      expect(receipt.headers['x-webhook-signature']).toBe(`sha256=${hmac}`);
      expect(receipt.headers['merchant-signature']).toBeUndefined();
    }
  });

  it('shows payments and refunds: order_update on payment and on each refund, with refund adjustments and amount_refunded', async () => {
    await subscribe(acpReceiver.url, 'acp');
    const { order } = await checkoutOrder(1);
    const pay = await commerce().post('/payments', {
      accountId: 'cust_acp',
      amountCents: order.totalCents,
      currency: 'USD',
      orderId: order.id,
    });
    expect(pay.statusCode, pay.body).toBe(201);
    const session = pay.json().data as { id: string };
    expect((await commerce().post(`/payments/${session.id}/complete`, {})).statusCode).toBe(200);
    await worker.drain();
    const beforeRefund = bodies(acpReceiver);
    expect(beforeRefund.map((b) => b.type).sort()).toEqual(['order_create', 'order_update']);
    for (const b of beforeRefund) expect(b.data.adjustments).toEqual([]);
    clock.advance(1_000);
    const refund = await commerce().post(`/payments/${session.id}/refunds`, {
      amountCents: 1200,
      reason: 'requested_by_customer',
      note: 'Wrong size',
    });
    expect(refund.statusCode, refund.body).toBe(201);
    await worker.drain();

    const received = bodies(acpReceiver);
    expect(received).toHaveLength(3);
    const last = received[2].data;
    expect(received[2].type).toBe('order_update');
    expect(last.adjustments).toEqual([
      {
        id: `adj_${refund.json().data.id}`,
        type: 'refund',
        occurred_at: clock.now().toISOString(),
        status: 'completed',
        amount: 1200,
        currency: 'usd',
        description: 'Wrong size',
        reason: 'requested_by_customer',
      },
    ]);
    expect(last.totals.at(-1)).toEqual({ type: 'amount_refunded', display_text: 'Refunded', amount: 1200 });
    expect(last.totals.find((x: { type: string }) => x.type === 'total').amount).toBe(5000);
  });

  it('an ACP delivery whose receiver fails is retried like any other, with a fresh signature', async () => {
    const acp = await subscribe(acpReceiver.url, 'acp');
    acpReceiver.setResponder((n) => (n === 1 ? { status: 500 } : { status: 200 }));
    const { order } = await checkoutOrder(1);
    expect(await worker.drain()).toBe(1);
    clock.advance(2_000);
    expect(await worker.drain()).toBe(1);
    expect(acpReceiver.receipts).toHaveLength(2);
    for (const receipt of acpReceiver.receipts)
      expect(merchantSignatureValid(receipt, acp.secret)).toBe(true);
    expect(bodies(acpReceiver).map((b) => [b.type, b.data.id])).toEqual([
      ['order_create', order.id],
      ['order_create', order.id],
    ]);
  });
});
