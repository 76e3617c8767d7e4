import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carts } from '../../src/modules/carts/tables.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost } from '../support/catalog-fixtures.js';

// An agent goes from a catalog or product result to a cart holding the product by following
// `nextActions` alone, over HTTP and over MCP: every product offers `createCart` with itself as the
// first line (in its currency), or, from search with `cartId`, `addCartItem` into that cart; a cart without a
// buyer offers `createAccount`.

type Action = {
  rel: string;
  method: string;
  href: string;
  allowed: boolean;
  operationId: string;
  arguments?: Record<string, unknown>;
};
type Body = { data: Record<string, unknown>; nextActions: Action[] };
type Cart = { id: string; currency: string; items: { productId: string; quantity: number }[] };

let t: TestApp;
let tenant: TestTenant;
let baseUrl: string;
let workshop: string;
let euroKit: string;
const clients: Client[] = [];

const oneTime = (name: string, currency: string, cents: number) => ({
  name,
  type: 'one_time',
  currency,
  charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: cents }] }],
});

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps);
  workshop = (await adminPost(t, tenant, 'products', oneTime('Workshop', 'USD', 2500))).id;
  euroKit = (await adminPost(t, tenant, 'products', oneTime('Euro kit', 'EUR', 900))).id;
  const content = await api(t, tenant.keys.admin).put(`/admin/products/${workshop}/content/en`, {
    title: 'Onboarding workshop',
  });
  expect(content.statusCode, content.body).toBe(200);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  baseUrl = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await t.app.close();
});

/** The action `rel` about `productId` (in its arguments), as the agent would pick it. */
const offered = (body: Body, rel: string, productId?: string) => {
  const found = body.nextActions.find(
    (a) => a.rel === rel && (!productId || JSON.stringify(a.arguments ?? {}).includes(productId)),
  );
  if (!found) throw new Error(`no ${rel} for ${productId}: ${JSON.stringify(body.nextActions)}`);
  return found;
};

/** An action over HTTP: its method and href, the body its arguments less the path's and query's. */
async function follow(action: Action, decided: Record<string, unknown> = {}) {
  const href = new URL(action.href, 'http://local');
  const inHref = new Set([...href.pathname.split('/'), ...href.searchParams.keys()]);
  const body = Object.fromEntries(
    Object.entries({ ...action.arguments, ...decided }).filter(
      ([k, v]) => !inHref.has(k) && !inHref.has(String(v)),
    ),
  );
  const res = await t.app.inject({
    method: action.method as 'POST',
    url: action.href,
    headers: bearer(tenant.keys.commerce),
    ...(action.method === 'GET' ? {} : { payload: body }),
  });
  return { status: res.statusCode, body: res.json() as Body };
}

const get = async (url: string) => {
  const res = await api(t, tenant.keys.commerce).get(url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Body;
};

describe('from a catalog result to a cart, following nextActions (HTTP)', () => {
  it('GET /catalog: createCart with the product in its currency; then search with cartId: addCartItem', async () => {
    const catalog = await get('/catalog');
    expect(offered(catalog, 'createCart', euroKit).arguments).toEqual({
      currency: 'EUR',
      items: [{ productId: euroKit, quantity: 1 }],
    });
    const created = await follow(offered(catalog, 'createCart', workshop));
    expect(created.status).toBe(201);
    const cart = created.body.data as unknown as Cart;
    expect(cart).toMatchObject({ currency: 'USD', items: [{ productId: workshop, quantity: 1 }] });
    expect(created.body.data.totalCents).toBe(2500);
    // No buyer yet: the cart says how to get one.
    expect(offered(created.body, 'createAccount')).toMatchObject({
      method: 'POST',
      href: '/api/v1/accounts',
    });

    // With the cart, search (no words: every product) offers addCartItem into it instead.
    const withCart = await get(`/catalog/search?cartId=${cart.id}`);
    expect(withCart.nextActions.map((a) => a.rel)).not.toContain('createCart');
    // The USD cart cannot take the EUR product: it is offered nothing to add there.
    expect(withCart.nextActions.filter((a) => a.rel === 'addCartItem').map((a) => a.arguments)).toEqual([
      { id: cart.id, productId: workshop, quantity: 1 },
    ]);
    const added = await follow(offered(withCart, 'addCartItem', workshop));
    expect(added.status).toBe(201);
    expect((added.body.data as unknown as Cart).items).toEqual([
      expect.objectContaining({ productId: workshop, quantity: 2 }),
    ]);
    // The next page keeps the cart; a cart that is not the tenant's gets createCart instead.
    const paged = await get(`/catalog/search?cartId=${cart.id}&limit=1`);
    expect(offered(paged, 'next').arguments).toMatchObject({ cartId: cart.id, limit: 1 });
    const unknown = await get('/catalog/search?cartId=0190b000-0000-7000-8000-0000000000c9');
    expect(offered(unknown, 'createCart', workshop)).toBeDefined();
    expect(unknown.nextActions.map((a) => a.rel)).not.toContain('addCartItem');
  });

  it('GET /catalog/search: createCart with the result, the page’s bare createCart gone', async () => {
    const found = await get('/catalog/search?q=workshop');
    expect(found.nextActions.filter((a) => a.rel === 'createCart')).toHaveLength(1);
    const created = await follow(offered(found, 'createCart', workshop));
    expect(created.status).toBe(201);
    expect((created.body.data as unknown as Cart).items).toEqual([
      expect.objectContaining({ productId: workshop, quantity: 1 }),
    ]);
  });

  it('GET /products/{id}/content: resolvePrice and createCart with the product', async () => {
    const content = await get(`/products/${workshop}/content`);
    expect(content.nextActions.map((a) => a.rel)).toEqual(['self', 'resolvePrice', 'createCart']);
    const created = await follow(offered(content, 'createCart', workshop), {
      items: [{ productId: workshop, quantity: 3 }],
    });
    expect(created.status).toBe(201);
    expect((created.body.data as unknown as Cart).items).toEqual([
      expect.objectContaining({ productId: workshop, quantity: 3 }),
    ]);
  });

  it('without a buyer: the cart and its draft order offer createAccount, whose cart is the buyer’s', async () => {
    const catalog = await get('/catalog');
    const cart = await follow(offered(catalog, 'createCart', workshop));
    const order = await follow(offered(cart.body, 'checkout'));
    expect(order.status).toBe(201);
    expect(order.body.data).toMatchObject({ status: 'draft', organizationId: null, totalCents: 2500 });
    expect(order.body.nextActions.map((a) => a.rel)).toEqual(['self', 'update', 'createAccount']);
    const account = await follow(offered(order.body, 'createAccount'), { name: 'Initech' });
    expect(account.status).toBe(201);
    const owned = await follow(offered(account.body, 'createCart'), {
      items: [{ productId: workshop, quantity: 1 }],
    });
    expect(owned.body.data).toMatchObject({ organizationId: account.body.data.id, totalCents: 2500 });
    expect(owned.body.nextActions.map((a) => a.rel)).not.toContain('createAccount');
  });

  it('createCart with items refuses a bad line naming it, and creates nothing', async () => {
    const count = async () =>
      (await t.deps.db.select().from(carts).where(eq(carts.tenantId, tenant.tenantId))).length;
    const before = await count();
    const shop = api(t, tenant.keys.commerce);
    const res = await shop.post('/carts', {
      currency: 'USD',
      items: [{ productId: workshop }, { productId: euroKit, quantity: 1 }],
    });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res)).toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'items.1.productId', rule: 'currency' })],
    });
    const tooMany = await shop.post('/carts', { items: Array(51).fill({ productId: workshop }) });
    expect(tooMany.statusCode).toBe(400);
    expect(JSON.stringify(errorBody(tooMany).details)).toContain('items');
    expect(await count()).toBe(before);
    // The same product twice merges into one line, as addCartItem does.
    const merged = await shop.post('/carts', { items: [{ productId: workshop }, { productId: workshop }] });
    expect(merged.statusCode).toBe(201);
    expect(merged.json().data.items).toEqual([expect.objectContaining({ productId: workshop, quantity: 2 })]);
  });
});

describe('from a catalog result to a cart, following nextActions (MCP)', () => {
  const connect = async () => {
    const client = new Client({ name: 'catalog-to-cart', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: bearer(tenant.keys.commerce) },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  const callAction = async (client: Client, action: Action, decided: Record<string, unknown> = {}) => {
    const result = await client.callTool({
      name: action.operationId,
      arguments: { ...action.arguments, ...decided },
    });
    expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
    return result.structuredContent as Body;
  };

  it('getCatalog -> createCart -> searchCatalog with cartId -> addCartItem, arguments as offered', async () => {
    const agent = await connect();
    const catalog = (await agent.callTool({ name: 'getCatalog', arguments: {} })).structuredContent as Body;
    const cart = await callAction(agent, offered(catalog, 'createCart', workshop));
    const cartId = (cart.data as unknown as Cart).id;
    expect(cart.data).toMatchObject({ items: [{ productId: workshop, quantity: 1 }] });
    const found = (await agent.callTool({ name: 'searchCatalog', arguments: { q: 'workshop', cartId } }))
      .structuredContent as Body;
    const added = await callAction(agent, offered(found, 'addCartItem', workshop));
    expect(added.data).toMatchObject({ id: cartId, items: [{ productId: workshop, quantity: 2 }] });
    // The account the cart asks for, then a cart for it.
    const account = await callAction(agent, offered(added, 'createAccount'), { name: 'Initech' });
    const owned = await callAction(agent, offered(account, 'createCart'));
    expect(owned.nextActions.map((a) => a.rel)).not.toContain('createAccount');
  });
});
