import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openPostgres } from '../../src/db/client.js';
import { listEvents } from '../../src/events/outbox.js';
import { type AcpCatalog, acpCatalog, acpClient, delegation, paidWith } from '../agentic/acp-client.js';
import {
  createTestTenant,
  errorBody,
  startApp,
  type TestApp,
  type TestTenant,
  usingPostgres,
} from '../harness.js';
import { api } from '../support/api.js';
import { adminPost } from '../support/catalog-fixtures.js';

// Stock: set per product, reserved by every path that places an order (POST /orders from items or
// a cart, an agentic checkout's completion), never oversold under concurrency (one app, and two
// apps on one database), given back by cancellation and by a refund with restock; its crossings
// emitted once; an ACP session tells an out-of-stock line as the protocol's message.

let t: TestApp;
let tenant: TestTenant;
const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));

const widget = () =>
  adminPost(t, tenant, 'products', {
    name: `Widget ${randomUUID().slice(0, 8)}`,
    type: 'one_time',
    currency: 'USD',
    charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 1000 }] }],
  }) as Promise<{ id: string }>;

const admin = () => api(t, tenant.keys.admin);
const shop = () => api(t, tenant.keys.commerce);
const setStock = (productId: string, body: object) => admin().put(`/admin/products/${productId}/stock`, body);
const stockOf = async (productId: string) => {
  const res = await admin().get(`/admin/products/${productId}/stock`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const order = (items: object[], app: TestApp = t) =>
  api(app, tenant.keys.commerce).post('/orders', { items }, { idempotencyKey: randomUUID() });
const eventsFor = async (type: 'product.stock_low' | 'product.out_of_stock', productId: string) =>
  (await listEvents(t.deps.db, tenant.tenantId, type)).filter(
    (e) => (e.payload as { productId?: string }).productId === productId,
  );

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

describe('setting and reading stock', () => {
  it('an untracked product reads in_stock; PUT sets tracking and is audited', async () => {
    const p = await widget();
    expect(await stockOf(p.id)).toMatchObject({ tracked: false, availability: 'in_stock', updatedAt: null });
    const res = await setStock(p.id, { tracked: true, onHand: 5, lowStockThreshold: 2 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      productId: p.id,
      tracked: true,
      onHand: 5,
      reserved: 0,
      available: 5,
      lowStockThreshold: 2,
      availability: 'in_stock',
    });
    const audit = await admin().get(`/audit-logs?action=product.stock_set`);
    expect(audit.statusCode, audit.body).toBe(200);
    expect(audit.json().data.some((e: { resourceId: string }) => e.resourceId === p.id)).toBe(true);
  });

  it('bad input is a 400 naming the field; another tenant’s product is 404; a read key is 403', async () => {
    const p = await widget();
    const bad = await setStock(p.id, { tracked: true, onHand: -1 });
    expect(bad.statusCode).toBe(400);
    expect(errorBody(bad).details?.[0]?.field).toBe('onHand');
    const other = await createTestTenant(t.deps);
    const foreign = await api(t, other.keys.admin).put(`/admin/products/${p.id}/stock`, {
      tracked: true,
      onHand: 1,
    });
    expect(foreign.statusCode).toBe(404);
    expect((await api(t, other.keys.admin).get(`/admin/products/${p.id}/stock`)).statusCode).toBe(404);
    const readKey = await api(t, tenant.keys.read).put(`/admin/products/${p.id}/stock`, {
      tracked: true,
      onHand: 1,
    });
    expect(readKey.statusCode).toBe(403);
    expect((await stockOf(p.id)).tracked).toBe(false);
  });
});

describe('orders reserve stock', () => {
  it('an order reserves its units; cancelling releases them; fulfilling consumes them', async () => {
    const p = await widget();
    await setStock(p.id, { tracked: true, onHand: 10 });
    const a = await order([{ productId: p.id, quantity: 3 }]);
    expect(a.statusCode, a.body).toBe(201);
    expect(await stockOf(p.id)).toMatchObject({ onHand: 10, reserved: 3, available: 7 });
    const b = await order([{ productId: p.id, quantity: 2 }]);
    expect(b.statusCode, b.body).toBe(201);
    expect(await stockOf(p.id)).toMatchObject({ reserved: 5, available: 5 });

    const cancel = await shop().patch(`/orders/${a.json().data.id}`, { status: 'cancelled' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(await stockOf(p.id)).toMatchObject({ onHand: 10, reserved: 2, available: 8 });
    // Released once: a second cancellation moves nothing.
    await shop().patch(`/orders/${a.json().data.id}`, { status: 'pending' });
    await shop().patch(`/orders/${a.json().data.id}`, { status: 'cancelled' });
    expect(await stockOf(p.id)).toMatchObject({ reserved: 2 });

    const fulfil = await shop().patch(`/orders/${b.json().data.id}`, { status: 'fulfilled' });
    expect(fulfil.statusCode, fulfil.body).toBe(200);
    expect(await stockOf(p.id)).toMatchObject({ onHand: 8, reserved: 0, available: 8 });
  });

  it('a line asking more than is available is 409 out_of_stock naming it, and nothing is written', async () => {
    const free = await widget();
    const p = await widget();
    await setStock(p.id, { tracked: true, onHand: 2 });
    const before = (await api(t, tenant.keys.read).get('/orders?limit=100')).json().data.length;
    const res = await order([
      { productId: free.id, quantity: 1 },
      { productId: p.id, quantity: 3 },
    ]);
    expect(res.statusCode, res.body).toBe(409);
    expect(errorBody(res)).toMatchObject({ code: 'out_of_stock' });
    expect(errorBody(res).details?.[0]).toMatchObject({ field: 'items.1.productId', rule: 'in_stock' });
    expect((await api(t, tenant.keys.read).get('/orders?limit=100')).json().data.length).toBe(before);
    expect(await stockOf(p.id)).toMatchObject({ reserved: 0, available: 2 });
  });

  it('the same product on two lines counts as one: over what is available is refused', async () => {
    const p = await widget();
    await setStock(p.id, { tracked: true, onHand: 3 });
    const res = await order([
      { productId: p.id, quantity: 2 },
      { productId: p.id, quantity: 2 },
    ]);
    expect(res.statusCode, res.body).toBe(409);
    expect(errorBody(res).code).toBe('out_of_stock');
  });

  it('backorder sells beyond what is on hand; untracked products are never refused', async () => {
    const p = await widget();
    await setStock(p.id, { tracked: true, onHand: 1, availability: 'backorder' });
    const res = await order([{ productId: p.id, quantity: 4 }]);
    expect(res.statusCode, res.body).toBe(201);
    expect(await stockOf(p.id)).toMatchObject({
      onHand: 1,
      reserved: 4,
      available: 0,
      availability: 'backorder',
    });
    const free = await widget();
    expect((await order([{ productId: free.id, quantity: 1000 }])).statusCode).toBe(201);
  });

  it('a cart checkout reserves; a cart asking too much is refused and stays open', async () => {
    const p = await widget();
    await setStock(p.id, { tracked: true, onHand: 2 });
    const cart = await shop().post('/carts', { currency: 'USD' }, { idempotencyKey: randomUUID() });
    expect(cart.statusCode, cart.body).toBe(201);
    const cartId = cart.json().data.id;
    const added = await shop().post(
      `/carts/${cartId}/items`,
      { productId: p.id, quantity: 3 },
      { idempotencyKey: randomUUID() },
    );
    expect(added.statusCode, added.body).toBe(201);
    const refused = await shop().post('/orders', { cartId }, { idempotencyKey: randomUUID() });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(errorBody(refused).code).toBe('out_of_stock');
    expect((await api(t, tenant.keys.read).get(`/carts/${cartId}`)).json().data.status).not.toBe(
      'checked_out',
    );
    await setStock(p.id, { tracked: true, onHand: 3 });
    const placed = await shop().post('/orders', { cartId }, { idempotencyKey: randomUUID() });
    expect(placed.statusCode, placed.body).toBe(201);
    expect(await stockOf(p.id)).toMatchObject({ reserved: 3, available: 0, availability: 'out_of_stock' });
  });
});

describe('never oversold', () => {
  it('10 parallel orders for the last unit: exactly one 201, nine 409 out_of_stock', async () => {
    const p = await widget();
    await setStock(p.id, { tracked: true, onHand: 1 });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => order([{ productId: p.id, quantity: 1 }])),
    );
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(9);
    for (const r of answers.filter((a) => a.statusCode === 409))
      expect(errorBody(r).code).toBe('out_of_stock');
    expect(await stockOf(p.id)).toMatchObject({ onHand: 1, reserved: 1, available: 0 });
    expect(await eventsFor('product.out_of_stock', p.id)).toHaveLength(1);
  });

  it('two app instances on one database, 5 orders each for the last 2 units: exactly two 201', async () => {
    // On PostgreSQL the second app has its own connection pool, as another process would.
    const second = usingPostgres
      ? openPostgres({ url: process.env.DATABASE_URL as string, poolSize: 5 })
      : undefined;
    const other = await startApp({ clock, ...(second ? { database: second } : {}) });
    try {
      const p = await widget();
      await setStock(p.id, { tracked: true, onHand: 2 });
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => order([{ productId: p.id, quantity: 1 }], i % 2 ? other : t)),
      );
      expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(2);
      expect(answers.filter((r) => r.statusCode === 409)).toHaveLength(8);
      expect(await stockOf(p.id)).toMatchObject({ onHand: 2, reserved: 2, available: 0 });
    } finally {
      await other.app.close();
      await second?.close();
    }
  });
});

describe('reserved by the order’s one statement, far from thresholds', () => {
  it('30 parallel orders of 1 for 20 units with a threshold of 5: twenty 201, events once, counts exact', async () => {
    // Far from the threshold the order's single statement reserves; from there on each order
    // is refused by that statement's guard and reserved under the row's lock, with its events.
    const p = await widget();
    await setStock(p.id, { tracked: true, onHand: 20, lowStockThreshold: 5 });
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => order([{ productId: p.id, quantity: 1 }])),
    );
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(20);
    expect(answers.filter((r) => r.statusCode === 409)).toHaveLength(10);
    expect(await stockOf(p.id)).toMatchObject({ onHand: 20, reserved: 20, available: 0 });
    expect(await eventsFor('product.stock_low', p.id)).toHaveLength(1);
    expect(await eventsFor('product.out_of_stock', p.id)).toHaveLength(1);
    // Every placed order holds its unit: cancelling all of them gives all twenty back.
    for (const placed of answers.filter((r) => r.statusCode === 201)) {
      const cancelled = await shop().patch(`/orders/${placed.json().data.id}`, { status: 'cancelled' });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
    }
    expect(await stockOf(p.id)).toMatchObject({ reserved: 0, available: 20 });
  });
});

describe('events', () => {
  it('stock_low and out_of_stock are emitted once per crossing', async () => {
    const p = await widget();
    await setStock(p.id, { tracked: true, onHand: 5, lowStockThreshold: 2 });
    expect((await order([{ productId: p.id, quantity: 2 }])).statusCode).toBe(201); // 3 left
    expect(await eventsFor('product.stock_low', p.id)).toHaveLength(0);
    expect((await order([{ productId: p.id, quantity: 1 }])).statusCode).toBe(201); // 2 left: low
    expect((await order([{ productId: p.id, quantity: 1 }])).statusCode).toBe(201); // 1 left
    const low = await eventsFor('product.stock_low', p.id);
    expect(low).toHaveLength(1);
    expect(low[0]?.payload).toMatchObject({ productId: p.id, available: 2, lowStockThreshold: 2 });
    expect(await eventsFor('product.out_of_stock', p.id)).toHaveLength(0);
    expect((await order([{ productId: p.id, quantity: 1 }])).statusCode).toBe(201); // 0 left
    expect(await eventsFor('product.out_of_stock', p.id)).toHaveLength(1);
    expect((await order([{ productId: p.id, quantity: 1 }])).statusCode).toBe(409);
    expect(await eventsFor('product.out_of_stock', p.id)).toHaveLength(1);
    expect(await eventsFor('product.stock_low', p.id)).toHaveLength(1);
  });
});

describe('agentic checkout (ACP)', () => {
  let catalog: AcpCatalog;
  beforeAll(async () => {
    catalog = await acpCatalog(t, tenant);
  });

  const readySession = async (quantity: number) => {
    const agent = acpClient(t, tenant.keys.commerce);
    const res = await agent.create({ currency: 'usd', line_items: [{ id: catalog.ebook.id, quantity }] });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const pay = async (sessionId: string, amount: number) => {
    const agent = acpClient(t, tenant.keys.commerce);
    const token = await agent.delegate(delegation(sessionId, tenant.tenantId, amount, clock));
    expect(token.statusCode, token.body).toBe(201);
    return agent.complete(sessionId, paidWith(token.json().id));
  };

  it('a line over what is available is the out_of_stock message, and the session is not ready', async () => {
    await setStock(catalog.ebook.id, { tracked: true, onHand: 1 });
    const session = await readySession(2);
    expect(session.status).toBe('not_ready_for_payment');
    expect(session.messages).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'error', code: 'out_of_stock' })]),
    );
    expect((await readySession(1)).status).toBe('ready_for_payment');
  });

  it('completion reserves; a second ready session for the last unit is refused; a refund with restock puts it back', async () => {
    await setStock(catalog.ebook.id, { tracked: true, onHand: 1 });
    const first = await readySession(1);
    const second = await readySession(1);
    const done = await pay(first.id, 900);
    expect(done.statusCode, done.body).toBe(200);
    expect(await stockOf(catalog.ebook.id)).toMatchObject({ reserved: 1, available: 0 });
    const refused = await pay(second.id, 900);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().code).toBe('out_of_stock');
    expect(await stockOf(catalog.ebook.id)).toMatchObject({ reserved: 1 });

    const merchant = (await api(t, tenant.keys.read).get(`/checkout-sessions/${first.id}`)).json().data;
    const refund = await shop().post(
      `/payments/${merchant.paymentSessionId}/refunds`,
      { reason: 'requested_by_customer', restock: true },
      { idempotencyKey: randomUUID() },
    );
    expect(refund.statusCode, refund.body).toBe(201);
    expect(await stockOf(catalog.ebook.id)).toMatchObject({ onHand: 1, reserved: 0, available: 1 });
  });
});
