import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { searchCatalog } from '../../src/modules/storefront/search.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost } from '../support/catalog-fixtures.js';

// GET /catalog/search: full text in the reader's language, typo tolerance, filters, facets, prices
// from the pricing engine, paging with signed cursors, only published active products of the tenant.

const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
const ids: Record<string, string> = {};

const product = (t: TestApp, tenant: TestTenant, name: string, cents: number, extra: object = {}) =>
  adminPost(t, tenant, 'products', {
    name,
    type: 'one_time',
    currency: 'USD',
    entitlements: {},
    charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: cents }] }],
    ...extra,
  });

const KITCHEN = 'Home & Garden > Kitchen & Dining';

async function withContent(
  name: string,
  cents: number,
  locale: string,
  content: object,
  status = 'published',
) {
  const p = await product(t, shop, name, cents);
  const put = await api(t, shop.keys.admin).put(`/admin/products/${p.id}/content/${locale}`, content);
  expect(put.statusCode, put.body).toBe(200);
  if (status !== 'published') {
    const patched = await api(t, shop.keys.admin).patch(`/admin/products/${p.id}/content`, { status });
    expect(patched.statusCode, patched.body).toBe(200);
  }
  return p.id as string;
}

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  ids.knife = await withContent('Knife', 8900, 'en', {
    title: 'Chef knife 20 cm',
    description: 'A forged **steel** blade for everyday cutting.',
    brand: 'Acme',
    category: `${KITCHEN} > Knives`,
    attributes: [{ key: 'material', type: 'string', value: 'carbon steel' }],
    media: [{ url: 'https://cdn.acme.example/knife.jpg', type: 'image', alt: 'The knife', position: 0 }],
  });
  const fr = await api(t, shop.keys.admin).put(`/admin/products/${ids.knife}/content/fr`, {
    title: 'Couteau de chef 20 cm',
    brand: 'Acme',
    category: `${KITCHEN} > Knives`,
  });
  expect(fr.statusCode, fr.body).toBe(200);
  ids.mug = await withContent('Mug', 1500, 'en', {
    title: 'Coffee mug 350 ml',
    description: 'Stoneware, dishwasher safe.',
    brand: 'Brewco',
    category: `${KITCHEN} > Drinkware`,
  });
  ids.paring = await withContent('Paring', 2900, 'en', {
    title: 'Paring knife 9 cm',
    brand: 'acme',
    category: `${KITCHEN} > Knives`,
  });
  ids.draft = await withContent('Secret', 1000, 'en', { title: 'Secret knife prototype' }, 'draft');
  ids.workshop = (await product(t, shop, 'Knife sharpening workshop', 5000)).id;
  ids.inactive = (await product(t, shop, 'Retired knife', 1000, { active: false })).id;
  ids.foreign = (await product(t, other, 'Foreign knife', 100)).id;
  // 20% off the knife: the result's price comes from the pricing engine, the filter from the list price.
  await adminPost(t, shop, 'offers', {
    name: 'Launch',
    productId: ids.knife,
    discountType: 'percent',
    percentOff: 20,
    startsAt: '2026-01-01T00:00:00Z',
  });
  const stock = await api(t, shop.keys.admin).put(`/admin/products/${ids.mug}/stock`, {
    tracked: true,
    onHand: 0,
  });
  expect(stock.statusCode, stock.body).toBe(200);
  const paringStock = await api(t, shop.keys.admin).put(`/admin/products/${ids.paring}/stock`, {
    tracked: true,
    onHand: 7,
  });
  expect(paringStock.statusCode, paringStock.body).toBe(200);
});
afterAll(() => t.app.close());

const search = async (query: string, key = shop.keys.read, headers: Record<string, string> = {}) => {
  const res = await api(t, key).get(`/catalog/search?${query}`, { headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    data: Record<string, unknown>[];
    facets: Record<string, { value: string; count: number }[]>;
    meta: { limit: number; total: number; nextCursor: string | null };
    nextActions: { rel: string; operationId?: string; href: string; arguments?: Record<string, unknown> }[];
  };
};
const found = (body: { data: Record<string, unknown>[] }) => body.data.map((r) => r.productId);

describe('GET /catalog/search', () => {
  it('ranks the best match first, with its content, price, availability and actions', async () => {
    const body = await search('q=chef%20knife');
    expect(found(body)[0]).toBe(ids.knife);
    expect(body.data[0]).toEqual({
      productId: ids.knife,
      title: 'Chef knife 20 cm',
      slug: null,
      locale: 'en',
      excerpt: 'A forged **steel** blade for everyday cutting.',
      brand: 'Acme',
      category: `${KITCHEN} > Knives`,
      condition: null,
      image: { url: 'https://cdn.acme.example/knife.jpg', alt: 'The knife' },
      type: 'one_time',
      currency: 'USD',
      listPriceCents: 8900,
      priceCents: 7120,
      availability: 'in_stock',
      available: null,
      score: expect.any(Number),
    });
    expect(body.data[0]?.score).toBeGreaterThan(0);
    expect(body.nextActions.find((a) => a.rel === 'createOrder')).toMatchObject({
      href: '/api/v1/orders',
      arguments: { items: [{ productId: ids.knife, quantity: 1 }], currency: 'USD' },
    });
    expect(body.nextActions.map((a) => a.rel)).toContain('createCart');
  });

  it('finds words anywhere in the document, stemmed in the reader’s language', async () => {
    expect(found(await search('q=steel'))).toEqual([ids.knife]); // attribute and description
    expect(found(await search('q=mugs'))).toEqual([ids.mug]); // English stemming
    expect(found(await search('q=dishwasher'))).toEqual([ids.mug]);
  });

  it('tolerates a misspelled title word', async () => {
    expect(found(await search('q=cofee'))).toEqual([ids.mug]);
  });

  it('answers in the requested locale, by parameter or Accept-Language', async () => {
    const byParam = await search('q=couteau&locale=fr');
    expect(found(byParam)).toEqual([ids.knife]);
    expect(byParam.data[0]).toMatchObject({ title: 'Couteau de chef 20 cm', locale: 'fr' });
    const byHeader = await search('q=chef', shop.keys.read, { 'accept-language': 'fr-CA, en;q=0.5' });
    expect(byHeader.data.find((r) => r.productId === ids.knife)).toMatchObject({ locale: 'fr' });
  });

  it('never shows drafts, inactive products or another tenant’s products; a product without content by name', async () => {
    const body = await search('q=knife&limit=50');
    expect(new Set(found(body))).toEqual(new Set([ids.knife, ids.paring, ids.workshop]));
    expect(body.data.find((r) => r.productId === ids.workshop)).toMatchObject({
      title: 'Knife sharpening workshop',
      locale: null,
      brand: null,
    });
    expect(found(await search('q=knife', other.keys.read))).toEqual([ids.foreign]);
  });

  it('filters by brand (any case), category prefix, list price, currency and availability', async () => {
    expect(new Set(found(await search('brand=ACME')))).toEqual(new Set([ids.knife, ids.paring]));
    const knives = encodeURIComponent(`${KITCHEN} > Knives`);
    expect(new Set(found(await search(`category=${knives}`)))).toEqual(new Set([ids.knife, ids.paring]));
    expect(found(await search(`category=${encodeURIComponent(KITCHEN)}`))).toHaveLength(3);
    expect(found(await search(`category=${encodeURIComponent('Home & Garden > Kitchen')}`))).toEqual([]);
    expect(new Set(found(await search('priceMinCents=2000&priceMaxCents=9000')))).toEqual(
      new Set([ids.knife, ids.paring, ids.workshop]),
    );
    expect(found(await search('priceMaxCents=1500'))).toEqual([ids.mug]);
    expect(found(await search('currency=EUR'))).toEqual([]);
    const out = await search('availability=out_of_stock');
    expect(found(out)).toEqual([ids.mug]);
    expect(out.data[0]).toMatchObject({ availability: 'out_of_stock', available: 0 });
    expect((await search('q=paring')).data[0]).toMatchObject({ available: 7 });
  });

  it('counts facets over every match', async () => {
    const body = await search('q=knife');
    expect(body.meta.total).toBe(3);
    expect(body.facets.brand).toEqual([
      { value: 'Acme', count: 1 },
      { value: 'acme', count: 1 },
    ]);
    expect(body.facets.category).toEqual([{ value: `${KITCHEN} > Knives`, count: 2 }]);
    expect(body.facets.availability).toEqual([{ value: 'in_stock', count: 3 }]);
  });

  it('pages with signed cursors bound to the query', async () => {
    const first = await search('limit=2');
    expect(first.meta).toMatchObject({ limit: 2, total: 4 });
    const cursor = first.meta.nextCursor as string;
    const next = first.nextActions.find((a) => a.rel === 'next');
    expect(next?.arguments).toMatchObject({ cursor, limit: 2 });
    const second = await search(`limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect(second.meta.nextCursor).toBeNull();
    expect(new Set([...found(first), ...found(second)])).toEqual(
      new Set([ids.knife, ids.mug, ids.paring, ids.workshop]),
    );
    const otherQuery = await api(t, shop.keys.read).get(`/catalog/search?q=mug&limit=2&cursor=${cursor}`);
    expect(otherQuery.statusCode).toBe(400);
    expect(errorBody(otherQuery).details?.[0]).toMatchObject({ field: 'query.cursor', rule: 'list' });
    const foreign = await api(t, other.keys.read).get(`/catalog/search?limit=2&cursor=${cursor}`);
    expect(errorBody(foreign).details?.[0]).toMatchObject({ field: 'query.cursor', rule: 'tenant' });
  });

  it('gives addCartItem actions for a named cart, createCart for a cart that is not the tenant’s', async () => {
    const cart = await api(t, shop.keys.commerce).post('/carts', { currency: 'USD' });
    const cartId = cart.json().data.id;
    const body = await search(`q=mug&cartId=${cartId}`, shop.keys.commerce);
    expect(body.nextActions.find((a) => a.rel === 'addCartItem')).toMatchObject({
      href: `/api/v1/carts/${cartId}/items`,
      arguments: { productId: ids.mug, quantity: 1 },
    });
    expect(body.nextActions.map((a) => a.rel)).not.toContain('createOrder');
    const unknown = await search('q=mug&cartId=0190b000-0000-7000-8000-0000000000c1', shop.keys.commerce);
    expect(unknown.nextActions.map((a) => a.rel)).not.toContain('addCartItem');
    expect(unknown.nextActions.find((a) => a.rel === 'createCart')).toMatchObject({
      arguments: { currency: 'USD', items: [{ productId: ids.mug, quantity: 1 }] },
    });
  });

  it('refuses bad input naming the field, and a caller without a key', async () => {
    for (const [query, field] of [
      ['priceMinCents=-1', 'priceMinCents'],
      ['priceMinCents=200&priceMaxCents=100', 'query.priceMinCents'],
      [`q=${'a'.repeat(201)}`, 'q'],
      ['availability=soon', 'availability'],
      ['limit=51', 'limit'],
      ['locale=not%20a%20tag', 'locale'],
    ] as const) {
      const res = await api(t, shop.keys.read).get(`/catalog/search?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(JSON.stringify(errorBody(res).details), query).toContain(field);
    }
    expect((await api(t, null).get('/catalog/search?q=knife')).statusCode).toBe(401);
  });
});

describe('GET /catalog', () => {
  it('leaves drafts out', async () => {
    const res = await api(t, shop.keys.read).get('/catalog');
    expect(res.statusCode).toBe(200);
    const listed = (res.json().data as { id: string }[]).map((p) => p.id);
    expect(listed).toContain(ids.knife);
    expect(listed).not.toContain(ids.draft);
  });
});

describe('the search statement', () => {
  it('a lookup (facets: false) finds the same products and counts no facets', async () => {
    const query = {
      q: '',
      language: 'simple',
      locales: ['en'],
      only: { ids: [ids.mug as string], slugs: [] },
    };
    const page = { offset: 0, limit: 5 };
    const full = await searchCatalog(t.deps.db, shop.tenantId, query, page);
    const lookup = await searchCatalog(t.deps.db, shop.tenantId, query, { ...page, facets: false });
    expect(full.facets.brand).toEqual([{ value: 'Brewco', count: 1 }]);
    expect(lookup).toEqual({ ...full, facets: { brand: [], category: [], availability: [] } });
  });

  it('the typo path (its own transaction, trigram indexes) finds the same in a caller’s transaction', async () => {
    const query = { q: 'cofee', language: 'english', locales: ['en'] };
    const page = { offset: 0, limit: 5 };
    const alone = await searchCatalog(t.deps.db, shop.tenantId, query, page);
    expect(alone.hits.map((h) => h.productId)).toEqual([ids.mug]);
    const nested = await t.deps.db.transaction((tx) => searchCatalog(tx, shop.tenantId, query, page));
    expect(nested).toEqual(alone);
  });
});

describe('the searchCatalog MCP tool', () => {
  it('answers what GET /catalog/search answers, and refuses an unknown argument before running', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    const client = new Client({ name: 'search-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${address.port}/mcp`), {
        requestInit: { headers: bearer(shop.keys.read) },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === 'searchCatalog')?.annotations).toMatchObject({
        readOnlyHint: true,
      });
      const result = await client.callTool({ name: 'searchCatalog', arguments: { q: 'mugs', locale: 'en' } });
      expect(result.isError).toBeFalsy();
      const body = result.structuredContent as { data: { productId: string; priceCents: number }[] };
      expect(body.data.map((r) => r.productId)).toEqual([ids.mug]);
      expect(body.data[0]?.priceCents).toBe(1500);
      const refused = await client.callTool({ name: 'searchCatalog', arguments: { query: 'mug' } });
      expect(refused.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
