import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import {
  lookupExample,
  productExample,
  searchExample,
} from '../../src/modules/checkout-sessions/ucp-catalog/examples.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { catalogClient, KITCHEN, stockCatalog } from './schemas/ucp/catalog-shop.js';
import { platformProfile, startPlatform, ucpAgent } from './schemas/ucp/platform.js';
import { assertUcp, type UcpSchema } from './schemas/ucp/validator.js';

// UCP's catalog over REST (catalog/rest.md): search, lookup and get product answered from our
// catalog search, every request and answer checked against our JSON Schemas of UCP 2026-04-08.

const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let ids: Awaited<ReturnType<typeof stockCatalog>>;
let platform: Awaited<ReturnType<typeof startPlatform>>;
let ucp: ReturnType<typeof catalogClient>;

beforeAll(async () => {
  t = await startApp({ clock, config: { publicBaseUrl: 'https://shop.example.com' } });
  shop = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  ids = await stockCatalog(t, shop, other);
  platform = await startPlatform();
  const profile = platformProfile({ capabilities: ['catalog.search', 'catalog.lookup', 'checkout'] });
  ucp = catalogClient(t, shop.keys.read, platform.serve('/catalog', { body: profile }));
});
afterAll(async () => {
  await t.app.close();
  await platform.close();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are checked against UCP's JSON Schemas first.
type Answer = Record<string, any>;

/** Checks the request, sends it, checks the 200 answer against `answer`. */
async function call(
  schemas: [UcpSchema, UcpSchema],
  send: (body: unknown) => ReturnType<typeof ucp.search>,
  body: unknown,
): Promise<Answer> {
  assertUcp(schemas[0], body);
  const res = await send(body);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  const answer = res.json();
  assertUcp(schemas[1], answer);
  return answer;
}
const search = (body: unknown, headers?: Record<string, string>) =>
  call(['searchRequest', 'searchResponse'], (b) => ucp.search(b, headers), body);
const lookup = (body: unknown) => call(['lookupRequest', 'lookupResponse'], ucp.lookup, body);
const idsOf = (answer: Answer) => answer.products.map((p: Answer) => p.id);

/** A refused request: the status and UCP's error response. */
async function refused(res: Awaited<ReturnType<typeof ucp.search>>, status: number) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  assertUcp('error', body);
  return body.messages as Answer[];
}

describe('the catalog routes’ declared examples', () => {
  it('are valid UCP answers', () => {
    assertUcp('searchResponse', searchExample);
    assertUcp('lookupResponse', lookupExample);
    assertUcp('getProductResponse', productExample);
  });
});

describe('the business profile', () => {
  it('declares dev.ucp.shopping.catalog.search and .lookup with their spec and schema', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/ucp/t/${shop.tenantId}/.well-known/ucp` });
    const { ucp: declared } = res.json();
    assertUcp('businessProfile', res.json());
    for (const name of ['search', 'lookup'])
      expect(declared.capabilities[`dev.ucp.shopping.catalog.${name}`]).toEqual([
        {
          version: '2026-04-08',
          spec: `https://ucp.dev/2026-04-08/specification/catalog/${name}`,
          schema: `https://ucp.dev/2026-04-08/schemas/shopping/catalog_${name}.json`,
        },
      ]);
  });
});

describe('POST /ucp/v1/catalog/search', () => {
  it('finds by query: the product, its one variant (the product id), prices, availability, seller', async () => {
    const answer = await search({
      query: 'chef knife',
      context: { address_country: 'US', intent: 'a gift' },
    });
    expect(answer.ucp).toEqual({
      version: '2026-04-08',
      status: 'success',
      capabilities: { 'dev.ucp.shopping.catalog.search': [{ version: '2026-04-08' }] },
    });
    const [knife] = answer.products;
    const usd = (amount: number) => ({ amount, currency: 'USD' });
    expect(knife).toEqual({
      id: ids.knife,
      handle: 'chef-knife-20cm',
      title: 'Chef knife 20 cm',
      description: { markdown: 'A forged **steel** blade for everyday cutting.' },
      categories: [{ value: `${KITCHEN} > Knives`, taxonomy: 'merchant' }],
      price_range: { min: usd(7120), max: usd(7120) },
      list_price_range: { min: usd(8900), max: usd(8900) },
      media: [{ type: 'image', url: 'https://cdn.acme.example/knife.jpg', alt_text: 'The knife' }],
      variants: [
        {
          id: ids.knife,
          title: 'Chef knife 20 cm',
          description: { markdown: 'A forged **steel** blade for everyday cutting.' },
          price: usd(7120),
          list_price: usd(8900),
          availability: { available: true, status: 'in_stock' },
          barcodes: [{ type: 'GTIN', value: '4006381333931' }],
          seller: {
            name: 'Acme Kitchen',
            links: [{ type: 'refund_policy', url: 'https://acme.example/returns', title: 'Return policy' }],
          },
        },
      ],
      metadata: {
        product_type: 'one_time',
        language: 'en',
        brand: 'Acme',
        condition: 'new',
        mpn: 'CK-20',
        attributes: { material: 'carbon steel' },
      },
    });
  });

  it('never shows drafts, inactive products or another tenant’s', async () => {
    const answer = await search({ query: 'knife', pagination: { limit: 50 } });
    expect(idsOf(answer).sort()).toEqual([ids.knife, ids.paring, ids.workshop].sort());
    expect(answer.pagination).toEqual({ has_next_page: false, total_count: 3 });
  });

  it('a product without content: its name, its plain description, no handle or category', async () => {
    const [workshop] = (await search({ query: 'sharpening workshop' })).products;
    expect(workshop).toMatchObject({
      id: ids.workshop,
      title: 'Knife sharpening workshop',
      description: { plain: 'Two hours, hands on.' },
      metadata: { product_type: 'one_time' },
    });
    expect(workshop.handle).toBeUndefined();
    expect(workshop.categories).toBeUndefined();
  });

  it('filters by categories (any of, a path prefix matches) and by price, browsing without a query', async () => {
    const knives = await search({ filters: { categories: [`${KITCHEN} > Knives`] } });
    expect(idsOf(knives).sort()).toEqual([ids.knife, ids.paring].sort());
    const kitchen = await search({ filters: { categories: ['Nowhere', KITCHEN] } });
    expect(idsOf(kitchen).sort()).toEqual([ids.knife, ids.mug, ids.paring].sort());
    const cheap = await search({ filters: { price: { max: 2000 } }, context: { currency: 'USD' } });
    expect(idsOf(cheap)).toEqual([ids.mug]);
    const middle = await search({
      query: 'knife',
      filters: { categories: [KITCHEN], price: { min: 2000, max: 6000 } },
    });
    expect(idsOf(middle)).toEqual([ids.paring]);
  });

  it('says what it could not apply: another currency’s price filter, an unknown filter', async () => {
    const answer = await search({
      query: 'mug',
      filters: { price: { max: 100 }, brand: 'Brewco' },
      context: { currency: 'eur' },
    });
    expect(idsOf(answer)).toEqual([ids.mug]);
    expect(answer.messages).toEqual([
      expect.objectContaining({ type: 'info', code: 'filter_ignored' }),
      expect.objectContaining({ type: 'info', code: 'price_filter_not_applied', path: '$.products[0]' }),
    ]);
  });

  it('availability: out of stock is not available; a backorder is, with a delayed_fulfillment warning', async () => {
    const answer = await search({ filters: { categories: [KITCHEN] }, pagination: { limit: 10 } });
    const at = (id: string) => idsOf(answer).indexOf(id);
    expect(answer.products[at(ids.mug)].variants[0].availability).toEqual({
      available: false,
      status: 'out_of_stock',
    });
    expect(answer.products[at(ids.paring)].variants[0].availability).toEqual({
      available: true,
      status: 'backorder',
    });
    expect(answer.messages).toEqual([
      expect.objectContaining({
        type: 'warning',
        code: 'delayed_fulfillment',
        path: `$.products[${at(ids.paring)}].variants[0]`,
      }),
    ]);
  });

  it('pages with the cursor, sent back with the same query and filters', async () => {
    const body = { filters: { categories: [KITCHEN] }, pagination: { limit: 2 } };
    const first = await search(body);
    expect(first.products).toHaveLength(2);
    expect(first.pagination).toEqual({ cursor: expect.any(String), has_next_page: true, total_count: 3 });
    const second = await search({ ...body, pagination: { limit: 2, cursor: first.pagination.cursor } });
    expect(second.products).toHaveLength(1);
    expect(second.pagination).toEqual({ has_next_page: false, total_count: 3 });
    expect(new Set([...idsOf(first), ...idsOf(second)]).size).toBe(3);
    const elsewhere = { query: 'mug', pagination: { cursor: first.pagination.cursor } };
    const [message] = await refused(await ucp.search(elsewhere), 400);
    expect(message).toMatchObject({ code: 'invalid', path: '$.pagination.cursor', severity: 'recoverable' });
  });

  it('a limit above 50 is clamped, not refused', async () => {
    const answer = await search({ filters: { price: { min: 0 } }, pagination: { limit: 1000 } });
    expect(answer.products).toHaveLength(4);
  });

  it('in the reader’s language: context.language, else Accept-Language', async () => {
    const french = (await search({ query: 'couteau chef', context: { language: 'fr' } })).products[0];
    expect(french).toMatchObject({
      id: ids.knife,
      title: 'Couteau de chef 20 cm',
      description: { markdown: 'Une lame en **acier** forgé.' },
      metadata: { language: 'fr' },
    });
    const header = await search({ query: 'chef knife' }, { 'accept-language': 'fr-CA, en;q=0.5' });
    expect(header.products[0].title).toBe('Couteau de chef 20 cm');
    const both = await search(
      { query: 'chef knife', context: { language: 'en' } },
      { 'accept-language': 'fr' },
    );
    expect(both.products[0].title).toBe('Chef knife 20 cm');
  });

  it('refuses what it cannot search by: 400 in UCP’s error shape, with the JSONPath', async () => {
    for (const [body, code, path] of [
      [{}, 'missing', '$.query'],
      [{ query: '   ', context: { language: 'en' } }, 'missing', '$.query'],
      [{ query: 42 }, 'invalid', '$.query'],
      [{ query: 'knife', filters: { price: { min: 500, max: 100 } } }, 'invalid', '$.filters.price.min'],
      [{ query: 'knife', pagination: { limit: 0 } }, 'invalid', '$.pagination.limit'],
    ] as const) {
      const [message] = await refused(await ucp.search(body), 400);
      expect(message, JSON.stringify(body)).toMatchObject({
        type: 'error',
        code,
        path,
        severity: 'recoverable',
      });
    }
    const noAgent = await t.app.inject({
      method: 'POST',
      url: '/ucp/v1/catalog/search',
      headers: { authorization: `Bearer ${shop.keys.read}` },
      payload: { query: 'knife' },
    });
    expect((await refused(noAgent, 400))[0]).toMatchObject({ code: 'invalid_profile_url' });
  });

  it('without the capability in common: 200 capabilities_incompatible, nothing searched', async () => {
    const url = platform.serve('/checkout-only', { body: platformProfile({ capabilities: ['checkout'] }) });
    const res = await catalogClient(t, shop.keys.read, url).search({ query: 'knife' });
    const [message] = await refused(res, 200);
    expect(message).toMatchObject({ code: 'capabilities_incompatible' });
  });
});

describe('POST /ucp/v1/catalog/lookup', () => {
  it('several ids, one unknown: the products found once each, inputs for correlation, not_found for the rest', async () => {
    const unknown = '0190b000-0000-7000-8000-00000000dead';
    const answer = await lookup({ ids: [ids.mug, unknown, ids.knife, 'chef-knife-20cm', ids.mug] });
    expect(idsOf(answer)).toEqual([ids.mug, ids.knife]);
    expect(answer.products[0].variants[0].inputs).toEqual([{ id: ids.mug, match: 'exact' }]);
    expect(answer.products[1].variants[0].inputs).toEqual([
      { id: ids.knife, match: 'exact' },
      { id: 'chef-knife-20cm', match: 'featured' },
    ]);
    expect(answer.ucp.capabilities).toEqual({
      'dev.ucp.shopping.catalog.lookup': [{ version: '2026-04-08' }],
    });
    expect(answer.messages).toEqual([{ type: 'info', code: 'not_found', content: unknown }]);
  });

  it('another tenant’s product, a draft, an inactive product, a word: not found', async () => {
    const asked = [ids.foreign, ids.draft, ids.inactive, 'no such thing!'];
    const answer = await lookup({ ids: asked });
    expect(answer.products).toEqual([]);
    expect(answer.messages.map((m: Answer) => m.content)).toEqual(asked);
  });

  it('filters apply after resolution; context.language chooses the content', async () => {
    const cheap = await lookup({ ids: [ids.knife, ids.mug], filters: { price: { max: 2000 } } });
    expect(idsOf(cheap)).toEqual([ids.mug]);
    const french = await lookup({ ids: [ids.knife], context: { language: 'fr' } });
    expect(french.products[0].title).toBe('Couteau de chef 20 cm');
  });

  it('more than 50 ids: 400 request_too_large; none: 400', async () => {
    const many = Array.from({ length: 51 }, (_, i) => `id-${i}`);
    const [tooMany] = await refused(await ucp.lookup({ ids: many }), 400);
    expect(tooMany).toMatchObject({ code: 'request_too_large', path: '$.ids' });
    const [none] = await refused(await ucp.lookup({ ids: [] }), 400);
    expect(none).toMatchObject({ code: 'invalid', path: '$.ids' });
  });

  it('a variant found is what a checkout takes as item.id', async () => {
    const { products } = await lookup({ ids: ['chef-knife-20cm'] });
    const variant = products[0].variants[0];
    const res = await t.app.inject({
      method: 'POST',
      url: '/ucp/v1/checkout-sessions',
      headers: { authorization: `Bearer ${shop.keys.commerce}`, ...ucpAgent(platform.url('/catalog')) },
      payload: { line_items: [{ item: { id: variant.id }, quantity: 1 }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().line_items[0].item).toMatchObject({ id: ids.knife, price: variant.price.amount });
  });
});

describe('POST /ucp/v1/catalog/product', () => {
  const product = (body: unknown) => call(['getProductRequest', 'getProductResponse'], ucp.product, body);

  it('the product in full, by id or handle; selections are accepted and not used', async () => {
    const byId = await product({
      id: ids.knife,
      selected: [{ name: 'Size', label: 'L' }],
      preferences: ['Size'],
    });
    expect(byId.product).toMatchObject({
      id: ids.knife,
      title: 'Chef knife 20 cm',
      variants: [{ id: ids.knife }],
    });
    expect(byId.product.selected).toBeUndefined();
    expect(byId.ucp.capabilities).toEqual({ 'dev.ucp.shopping.catalog.lookup': [{ version: '2026-04-08' }] });
    const byHandle = await product({ id: 'chef-knife-20cm' });
    expect(byHandle.product).toEqual(byId.product);
    const paring = await product({ id: ids.paring });
    expect(paring.messages).toEqual([
      expect.objectContaining({
        type: 'warning',
        code: 'delayed_fulfillment',
        path: '$.product.variants[0]',
      }),
    ]);
  });

  it('an id that names nothing of ours (another tenant’s, a draft): 200 with not_found, unrecoverable', async () => {
    for (const id of [ids.foreign, ids.draft, 'missing']) {
      assertUcp('getProductRequest', { id });
      const [message] = await refused(await ucp.product({ id }), 200);
      expect(message).toEqual({
        type: 'error',
        code: 'not_found',
        content: `Product not found: ${id}`,
        severity: 'unrecoverable',
      });
    }
    const [missing] = await refused(await ucp.product({}), 400);
    expect(missing).toMatchObject({ code: 'missing', path: '$.id' });
  });
});
