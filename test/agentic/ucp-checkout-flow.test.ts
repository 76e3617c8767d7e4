import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { platformProfile, startPlatform } from './schemas/ucp/platform.js';
import { ADDRESS, instrument, stockShop, ucpClient } from './schemas/ucp/shop.js';
import { assertUcp, totalsAddUp, type UcpSchema } from './schemas/ucp/validator.js';

// A whole UCP checkout as a platform runs it over REST, every request and every answer checked
// against our JSON Schemas of UCP 2026-04-08: create, add the address, choose the shipping option,
// apply a code, pay with the sandbox card, read the checkout and the order; and a second checkout
// canceled.

const clock = new ManualClock(new Date('2031-05-01T10:00:00.000Z'));
let t: TestApp;
let shop: TestTenant;
let stock: Awaited<ReturnType<typeof stockShop>>;
let platform: Awaited<ReturnType<typeof startPlatform>>;
let ucp: ReturnType<typeof ucpClient>;

beforeAll(async () => {
  t = await startApp({ clock, config: { publicBaseUrl: 'https://shop.example.com' } });
  shop = await createTestTenant(t.deps);
  stock = await stockShop(t, shop);
  platform = await startPlatform();
  ucp = ucpClient(t, shop.keys.commerce, platform.serve('/profile', { body: platformProfile() }));
});
afterAll(async () => {
  await t.app.close();
  await platform.close();
});

/** Checks the request against its schema, sends it, checks the answer against the checkout's. */
async function step(
  request: { schema: UcpSchema; body: unknown } | null,
  send: () => ReturnType<ReturnType<typeof ucpClient>['get']>,
  status = 200,
) {
  if (request) assertUcp(request.schema, request.body);
  const res = await send();
  expect(res.statusCode, res.body).toBe(status);
  const checkout = res.json();
  assertUcp('checkout', checkout);
  expect(totalsAddUp(checkout.totals), JSON.stringify(checkout.totals)).toBe(true);
  expect(res.body).not.toContain('success_token');
  return checkout;
}

describe('a UCP checkout from create to order', () => {
  let id: string;
  let lineId: string;
  let orderId: string;

  it('create: the line priced, incomplete until there is somewhere to ship the tote', async () => {
    const body = {
      line_items: [{ item: { id: stock.tote }, quantity: 2 }],
      buyer: { email: 'jane@example.com' },
    };
    const checkout = await step({ schema: 'createRequest', body }, () => ucp.create(body), 201);
    id = checkout.id;
    lineId = checkout.line_items[0].id;
    expect(checkout.status).toBe('incomplete');
    expect(checkout.currency).toBe('USD');
    expect(checkout.line_items[0]).toEqual(
      expect.objectContaining({
        item: expect.objectContaining({ id: stock.tote, price: 2500 }),
        quantity: 2,
      }),
    );
    expect(checkout.totals.find((x: { type: string }) => x.type === 'subtotal').amount).toBe(5000);
    expect(checkout.ucp.capabilities).toEqual({
      'dev.ucp.shopping.checkout': [{ version: '2026-04-08' }],
      'dev.ucp.shopping.discount': [{ version: '2026-04-08' }],
      'dev.ucp.shopping.fulfillment': [{ version: '2026-04-08' }],
    });
    expect(checkout.ucp.payment_handlers['com.example.sandbox_card'][0].id).toBe('sandbox_card');
    expect(checkout.fulfillment.methods[0].line_item_ids).toEqual([lineId]);
    const missing = checkout.messages.find((m: { path?: string }) => m.path?.startsWith('$.fulfillment'));
    expect(missing).toEqual(expect.objectContaining({ type: 'error', severity: 'recoverable' }));
  });

  it('update with the address: the shipping options for it appear, the cheapest chosen', async () => {
    const body = {
      line_items: [{ id: lineId, item: { id: stock.tote }, quantity: 2 }],
      buyer: { email: 'jane@example.com' },
      fulfillment: { methods: [{ type: 'shipping', destinations: [ADDRESS] }] },
    };
    const checkout = await step({ schema: 'updateRequest', body }, () => ucp.update(id, body));
    const method = checkout.fulfillment.methods[0];
    expect(method.destinations[0]).toEqual(
      expect.objectContaining({ postal_code: '62701', address_country: 'US' }),
    );
    expect(method.selected_destination_id).toBe(method.destinations[0].id);
    const options = method.groups[0].options;
    expect(options.map((o: { title: string }) => o.title)).toEqual(['Standard', 'Express']);
    expect(method.groups[0].selected_option_id).toBe(options[0].id);
    expect(checkout.totals).toContainEqual(expect.objectContaining({ type: 'fulfillment', amount: 500 }));
    expect(checkout.status).toBe('ready_for_complete');
  });

  it('choose the option (the method sent without destinations keeps the address): ready, shipping in the totals', async () => {
    const current = (await ucp.get(id)).json();
    const express = current.fulfillment.methods[0].groups[0].options.find(
      (o: { title: string }) => o.title === 'Express',
    );
    const body = {
      line_items: [{ id: lineId, item: { id: stock.tote }, quantity: 2 }],
      buyer: { email: 'jane@example.com' },
      fulfillment: {
        methods: [{ id: 'shipping_1', groups: [{ id: 'group_1', selected_option_id: express.id }] }],
      },
    };
    const checkout = await step({ schema: 'updateRequest', body }, () => ucp.update(id, body));
    expect(checkout.fulfillment.methods[0].groups[0].selected_option_id).toBe(express.id);
    expect(checkout.fulfillment.methods[0].destinations).toHaveLength(1);
    expect(checkout.totals).toContainEqual(expect.objectContaining({ type: 'fulfillment', amount: 1500 }));
    expect(checkout.status).toBe('ready_for_complete');
  });

  it('apply a discount code: applied with its amount, a negative discount line in the totals', async () => {
    const method = (await ucp.get(id)).json().fulfillment.methods[0];
    const body = {
      line_items: [{ id: lineId, item: { id: stock.tote }, quantity: 2 }],
      buyer: { email: 'jane@example.com' },
      fulfillment: {
        methods: [
          {
            id: method.id,
            type: 'shipping',
            line_item_ids: method.line_item_ids,
            selected_destination_id: method.selected_destination_id,
            destinations: method.destinations,
            groups: [{ id: method.groups[0].id, selected_option_id: method.groups[0].selected_option_id }],
          },
        ],
      },
      discounts: { codes: ['save10'] },
    };
    const checkout = await step({ schema: 'updateRequest', body }, () => ucp.update(id, body));
    expect(checkout.discounts.codes).toEqual(['save10']);
    expect(checkout.discounts.applied).toEqual([expect.objectContaining({ code: 'SAVE10', amount: 500 })]);
    expect(checkout.totals).toContainEqual(expect.objectContaining({ type: 'items_discount', amount: -500 }));
    expect(checkout.line_items[0].totals).toContainEqual({ type: 'items_discount', amount: -500 });
    expect(checkout.status).toBe('ready_for_complete');
  });

  it('complete with the sandbox card: completed, with the order', async () => {
    const body = instrument('success_token');
    const checkout = await step({ schema: 'completeRequest', body }, () =>
      ucp.complete(id, body, 'complete-1'),
    );
    expect(checkout.status).toBe('completed');
    expect(checkout.continue_url).toBeUndefined();
    orderId = checkout.order.id;
    expect(checkout.order.permalink_url).toBe(`https://shop.example.com/api/v1/orders/${orderId}`);
  });

  it('get: the completed checkout', async () => {
    const checkout = await step(null, () => ucp.get(id));
    expect(checkout.status).toBe('completed');
    expect(checkout.order.id).toBe(orderId);
  });

  it('get the order: lines, the shipping expectation to the address, totals as paid', async () => {
    const res = await ucp.order(orderId);
    expect(res.statusCode, res.body).toBe(200);
    const order = res.json();
    assertUcp('order', order);
    expect(order.ucp.capabilities).toEqual({ 'dev.ucp.shopping.order': [{ version: '2026-04-08' }] });
    expect(order.checkout_id).toBe(id);
    expect(order.line_items[0]).toEqual(
      expect.objectContaining({
        id: lineId,
        quantity: { original: 2, total: 2, fulfilled: 0 },
        status: 'processing',
      }),
    );
    expect(order.fulfillment.expectations[0]).toEqual(
      expect.objectContaining({
        method_type: 'shipping',
        destination: expect.objectContaining({ postal_code: '62701' }),
      }),
    );
    expect(totalsAddUp(order.totals)).toBe(true);
    const checkout = (await ucp.get(id)).json();
    expect(order.totals).toEqual(checkout.totals);
  });

  it('a second checkout, canceled', async () => {
    const body = { line_items: [{ item: { id: stock.ebook }, quantity: 1 }] };
    const created = await step({ schema: 'createRequest', body }, () => ucp.create(body), 201);
    const canceled = await step(null, () => ucp.cancel(created.id, 'cancel-1'));
    expect(canceled.status).toBe('canceled');
    const again = await ucp.cancel(created.id, 'cancel-2');
    expect(again.statusCode).toBe(409);
    assertUcp('error', again.json());
  });
});

describe('a product that does not ship', () => {
  it('completes without buyer or fulfillment details', async () => {
    const body = { line_items: [{ item: { id: stock.ebook }, quantity: 1 }] };
    const created = await step({ schema: 'createRequest', body }, () => ucp.create(body), 201);
    expect(created.status).toBe('ready_for_complete');
    expect(created.fulfillment).toBeUndefined();
    const done = await step({ schema: 'completeRequest', body: instrument('success_token') }, () =>
      ucp.complete(created.id, instrument('success_token')),
    );
    expect(done.status).toBe('completed');
    const order = (await ucp.order(done.order.id)).json();
    assertUcp('order', order);
    expect(order.fulfillment.expectations[0].method_type).toBe('digital');
  });
});
