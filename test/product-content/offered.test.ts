import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { acpCatalog, acpClient, address, noInterventions } from '../agentic/acp-client.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';

// "Only published products are offered to buyers and agents": a product whose content is a draft
// cannot be ordered (400 naming the line, nothing written) and is an error message in an agentic
// checkout session (not ready); published again, it sells.

const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));
let t: TestApp;
let shop: TestTenant;
let catalog: Awaited<ReturnType<typeof acpCatalog>>;

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps);
  catalog = await acpCatalog(t, shop);
});
afterAll(() => t.app.close());

const setStatus = async (productId: string, status: 'draft' | 'published') => {
  const res = await api(t, shop.keys.admin).patch(`/admin/products/${productId}/content`, { status });
  expect(res.statusCode, res.body).toBe(200);
};

const orderCount = async () =>
  (await api(t, shop.keys.commerce).get('/orders?limit=100')).json().data.length as number;

describe('draft products are not offered', () => {
  it('an order with a draft product is 400 naming its line, and nothing is written; published, it sells', async () => {
    await setStatus(catalog.ebook.id, 'draft');
    const before = await orderCount();
    const body = {
      items: [
        { productId: catalog.mug.id, quantity: 1 },
        { productId: catalog.ebook.id, quantity: 1 },
      ],
    };
    const refused = await api(t, shop.keys.commerce).post('/orders', body);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(errorBody(refused).details?.[0]).toMatchObject({ field: 'items.1.productId', rule: 'published' });
    expect(await orderCount()).toBe(before);
    await setStatus(catalog.ebook.id, 'published');
    expect((await api(t, shop.keys.commerce).post('/orders', body)).statusCode).toBe(201);
  });

  it('an ACP session with a draft product says so and is not ready for payment', async () => {
    await setStatus(catalog.mug.id, 'draft');
    const agent = acpClient(t, shop.keys.commerce);
    const created = await agent.create({
      currency: 'usd',
      line_items: [{ id: catalog.mug.id, quantity: 1 }],
      capabilities: noInterventions,
      fulfillment_details: { name: 'Jane Doe', email: 'jane@example.com', address },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().status).toBe('not_ready_for_payment');
    expect(created.json().messages).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'error', content: expect.stringContaining('not offered') }),
      ]),
    );
    await setStatus(catalog.mug.id, 'published');
    const updated = await agent.update(created.json().id, {
      line_items: [{ id: catalog.mug.id, quantity: 1 }],
    });
    expect(updated.json().messages.filter((m: { type: string }) => m.type === 'error')).toEqual([]);
  });
  it('a draft cannot be added to a cart (400 naming productId, the cart unchanged); published, it can', async () => {
    const shopper = api(t, shop.keys.commerce);
    const cart = await shopper.post('/carts', { currency: 'USD' });
    expect(cart.statusCode, cart.body).toBe(201);
    const cartId = cart.json().data.id as string;
    await setStatus(catalog.mug.id, 'draft');
    const refused = await shopper.post(`/carts/${cartId}/items`, { productId: catalog.mug.id, quantity: 1 });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(errorBody(refused).details?.[0]).toMatchObject({ field: 'productId', rule: 'published' });
    expect((await shopper.get(`/carts/${cartId}`)).json().data.items).toEqual([]);
    await setStatus(catalog.mug.id, 'published');
    const added = await shopper.post(`/carts/${cartId}/items`, { productId: catalog.mug.id, quantity: 1 });
    expect(added.statusCode, added.body).toBe(201);
  });
});
