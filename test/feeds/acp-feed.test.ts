import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openAcpFeed } from '../../src/modules/feeds/index.js';
import { acpProductExample } from '../../src/modules/feeds/schemas.js';
import { expectFeed, isFeed } from '../agentic/schemas/acp/index.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost } from '../support/catalog-fixtures.js';

// The ACP product feed (GET /admin/feeds/acp): the tenant's published catalog, one protocol
// `Product` a line, each valid against the protocol's own feed schema; content in the tenant's
// locale over the product's name, stock as availability, one unit's price, the seller and its
// policy links; drafts, inactive products and other tenants' products never in it.

const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
const ids: Record<string, string> = {};

interface Line {
  id: string;
  title: string;
  description?: Record<string, string>;
  url?: string;
  media?: { type: string; url: string; alt_text?: string }[];
  variants: Record<string, unknown>[];
}

const product = async (tenant: TestTenant, name: string, cents: number, extra: object = {}) =>
  (
    (await adminPost(t, tenant, 'products', {
      name,
      type: 'one_time',
      currency: 'USD',
      charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: cents }] }],
      ...extra,
    })) as { id: string }
  ).id;

const ok = async (res: Promise<{ statusCode: number; body: string }>) => {
  const done = await res;
  expect(done.statusCode, done.body).toBeLessThan(300);
};

const content = (id: string, locale: string, body: object) =>
  ok(api(t, shop.keys.admin).put(`/admin/products/${id}/content/${locale}`, body));

const feed = async (key = shop.keys.admin) => {
  const res = await api(t, key).get('/admin/feeds/acp');
  expect(res.statusCode, res.body).toBe(200);
  return {
    res,
    lines:
      res.body === ''
        ? []
        : res.body
            .trimEnd()
            .split('\n')
            .map((l) => JSON.parse(l) as Line),
  };
};
const lineOf = (lines: Line[], id: string) => lines.find((l) => l.id === id);

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps, { name: 'Acme' });
  other = await createTestTenant(t.deps);
  ids.mug = await product(shop, 'Mug (catalog name)', 1800, { requiresShipping: true });
  await content(ids.mug, 'en', {
    title: 'Ceramic mug',
    description: 'Stoneware, **350 ml**.',
    media: [
      { url: 'https://cdn.acme.example/mug-side.jpg', type: 'image', alt: 'Side', position: 2 },
      { url: 'https://cdn.acme.example/mug.jpg', type: 'image', alt: 'Front', position: 1 },
    ],
    brand: 'Acme',
    gtin: '4006381333931',
    condition: 'new',
    category: 'Home & Garden > Kitchen & Dining > Tableware',
  });
  await content(ids.mug, 'de', { title: 'Keramikbecher' });
  ids.bare = await product(shop, 'Gift card', 2500, { description: 'A card to give.' });
  ids.german = await product(shop, 'Stein', 500);
  await content(ids.german, 'de', { title: 'Steinkrug' });
  ids.draft = await product(shop, 'Secret', 900);
  await content(ids.draft, 'en', { title: 'Not yet' });
  await ok(api(t, shop.keys.admin).patch(`/admin/products/${ids.draft}/content`, { status: 'draft' }));
  ids.inactive = await product(shop, 'Retired', 700, { active: false });
  ids.yen = await product(shop, 'Tenugui', 1500, { currency: 'JPY' });
  ids.other = await product(other, 'Someone else’s', 100);
  await ok(
    api(t, shop.keys.admin).patch('/seller', {
      displayName: 'Acme Store',
      termsOfUseUrl: 'https://acme.example/terms',
      returnPolicyUrl: 'https://acme.example/returns',
    }),
  );
});
afterAll(() => t.app.close());

describe('GET /admin/feeds/acp', () => {
  it('streams JSON Lines, each line a Product of the protocol’s feed schema', async () => {
    const { res, lines } = await feed();
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="products.jsonl"');
    expect(res.body.endsWith('\n')).toBe(true);
    for (const line of lines) expectFeed('Product', line);
    // The documented example line too.
    expectFeed('Product', acpProductExample);
    // The schema is the protocol's, closed: a field it does not name is refused.
    expect(isFeed('Product', { ...lines[0], inventory_quantity: 3 })).toBe(false);
    // By product id, every published active product, nothing else.
    const listed = lines.map((l) => l.id);
    expect(listed).toEqual([ids.mug, ids.bare, ids.german, ids.yen].sort());
  });

  it('a product with content: its title, Markdown description, media in order, GTIN, category, condition, link', async () => {
    const { lines } = await feed();
    expect(lineOf(lines, ids.mug as string)).toEqual({
      id: ids.mug,
      title: 'Ceramic mug',
      description: { markdown: 'Stoneware, **350 ml**.' },
      url: `${t.deps.config.publicBaseUrl.replace(/\/+$/, '')}/api/v1/products/${ids.mug}/content?locale=en`,
      media: [
        { type: 'image', url: 'https://cdn.acme.example/mug.jpg', alt_text: 'Front' },
        { type: 'image', url: 'https://cdn.acme.example/mug-side.jpg', alt_text: 'Side' },
      ],
      variants: [
        {
          id: ids.mug,
          title: 'Ceramic mug',
          price: { amount: 1800, currency: 'USD' },
          availability: { available: true, status: 'in_stock' },
          barcodes: [{ type: 'GTIN', value: '4006381333931' }],
          categories: [{ value: 'Home & Garden > Kitchen & Dining > Tableware' }],
          condition: ['new'],
          seller: {
            name: 'Acme Store',
            links: [
              { type: 'terms_of_service', title: 'Terms of use', url: 'https://acme.example/terms' },
              { type: 'refund_policy', title: 'Return policy', url: 'https://acme.example/returns' },
            ],
          },
        },
      ],
    });
  });

  it('without content: the product’s name and description, no link; the price in the currency’s minor units', async () => {
    const { lines } = await feed();
    const bare = lineOf(lines, ids.bare as string);
    expect(bare).toMatchObject({ title: 'Gift card', description: { plain: 'A card to give.' } });
    expect(bare).not.toHaveProperty('url');
    expect(bare).not.toHaveProperty('media');
    expect(bare?.variants[0]).toMatchObject({ title: 'Gift card', price: { amount: 2500, currency: 'USD' } });
    expect(bare?.variants[0]).not.toHaveProperty('barcodes');
    expect(lineOf(lines, ids.yen as string)?.variants[0]?.price).toEqual({ amount: 1500, currency: 'JPY' });
  });

  it('the locale: the tenant’s default, else en, else the first the product has', async () => {
    expect(lineOf((await feed()).lines, ids.german as string)?.title).toBe('Steinkrug');
    await ok(api(t, shop.keys.admin).patch('/admin/settings', { defaultLocale: 'de' }));
    try {
      const { lines } = await feed();
      expect(lineOf(lines, ids.mug as string)).toMatchObject({ title: 'Keramikbecher' });
      expect(lineOf(lines, ids.mug as string)?.url).toMatch(/content\?locale=de$/);
      // The German locale has no description: the product's own (none) is not replaced by the English one.
      expect(lineOf(lines, ids.mug as string)).not.toHaveProperty('description');
    } finally {
      await ok(api(t, shop.keys.admin).patch('/admin/settings', { defaultLocale: 'en' }));
    }
  });

  it('reflects stock: out of stock, limited, preorder, backorder', async () => {
    const stock = (id: string, body: object) =>
      ok(api(t, shop.keys.admin).put(`/admin/products/${id}/stock`, body));
    const availability = async (id: string) => lineOf((await feed()).lines, id)?.variants[0]?.availability;
    await stock(ids.bare as string, { tracked: true, onHand: 0 });
    expect(await availability(ids.bare as string)).toEqual({ available: false, status: 'out_of_stock' });
    await stock(ids.bare as string, { tracked: true, onHand: 3, lowStockThreshold: 3 });
    expect(await availability(ids.bare as string)).toEqual({ available: true, status: 'limited_stock' });
    await stock(ids.bare as string, { tracked: true, onHand: 4, lowStockThreshold: 3 });
    expect(await availability(ids.bare as string)).toEqual({ available: true, status: 'in_stock' });
    await stock(ids.bare as string, { tracked: true, onHand: 0, availability: 'preorder' });
    expect(await availability(ids.bare as string)).toEqual({ available: true, status: 'preorder' });
    await stock(ids.bare as string, { tracked: true, onHand: 0, availability: 'backorder' });
    expect(await availability(ids.bare as string)).toEqual({ available: true, status: 'backorder' });
    await stock(ids.bare as string, { tracked: false, onHand: 0 });
    expect(await availability(ids.bare as string)).toEqual({ available: true, status: 'in_stock' });
  });

  it('an offer open to everyone lowers price; list_price keeps the price before it', async () => {
    const offer = await adminPost(t, shop, 'offers', {
      name: 'Launch',
      productId: ids.yen,
      discountType: 'percent',
      percentOff: 20,
      startsAt: '2026-05-01T00:00:00Z',
    });
    const variant = lineOf((await feed()).lines, ids.yen as string)?.variants[0];
    expect(variant).toMatchObject({
      price: { amount: 1200, currency: 'JPY' },
      list_price: { amount: 1500, currency: 'JPY' },
    });
    await ok(api(t, shop.keys.admin).delete(`/admin/offers/${offer.id}`));
  });

  it('a product priced by the billing system’s live quote (passthrough) has no price in the feed', async () => {
    const quoted = (
      (await adminPost(t, other, 'products', {
        name: 'Metered',
        type: 'one_time',
        currency: 'USD',
        charges: [{ name: 'Usage', kind: 'passthrough' }],
      })) as { id: string }
    ).id;
    const line = lineOf((await feed(other.keys.admin)).lines, quoted);
    expectFeed('Product', line);
    expect(line?.variants[0]).not.toHaveProperty('price');
    expect(line?.variants[0]).not.toHaveProperty('list_price');
    await ok(api(t, other.keys.admin).delete(`/admin/products/${quoted}`));
  });

  it('publishing a draft or activating a product puts it in; another tenant sees only its own', async () => {
    await ok(api(t, shop.keys.admin).patch(`/admin/products/${ids.draft}/content`, { status: 'published' }));
    await ok(api(t, shop.keys.admin).patch(`/admin/products/${ids.inactive}`, { active: true }));
    try {
      const listed = (await feed()).lines.map((l) => l.id);
      expect(listed).toEqual(expect.arrayContaining([ids.draft, ids.inactive]));
      expect(listed).not.toContain(ids.other);
      expect((await feed(other.keys.admin)).lines.map((l) => l.id)).toEqual([ids.other]);
    } finally {
      await ok(api(t, shop.keys.admin).patch(`/admin/products/${ids.draft}/content`, { status: 'draft' }));
      await ok(api(t, shop.keys.admin).patch(`/admin/products/${ids.inactive}`, { active: false }));
    }
  });

  it('a read or commerce key is 403; no key 401; a tenant with no products gets an empty feed', async () => {
    for (const key of [shop.keys.read, shop.keys.commerce]) {
      const res = await api(t, key).get('/admin/feeds/acp');
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
    expect((await api(t, null).get('/admin/feeds/acp')).statusCode).toBe(401);
    const empty = await createTestTenant(t.deps);
    const { res, lines } = await feed(empty.keys.admin);
    expect(res.body).toBe('');
    expect(lines).toEqual([]);
  });

  it('reads a page at a time: any page size gives the same lines (drafts and inactive ones across pages)', async () => {
    const whole = (await feed()).res.body;
    for (const pageSize of [1, 2, 3, 500]) {
      const lines = await openAcpFeed(t.deps.db, shop.tenantId, {
        publicBaseUrl: t.deps.config.publicBaseUrl,
        now: clock.now(),
        pageSize,
      });
      let text = '';
      for await (const chunk of lines) text += chunk;
      expect(text, `page size ${pageSize}`).toBe(whole);
    }
  });

  it('many products stream whole, in id order', async () => {
    const many = await createTestTenant(t.deps);
    const made: string[] = [];
    for (let i = 0; i < 30; i++)
      made.push(await product(many, `Item ${i} ${randomUUID().slice(0, 4)}`, 100 + i));
    const lines = await openAcpFeed(t.deps.db, many.tenantId, {
      publicBaseUrl: t.deps.config.publicBaseUrl,
      now: clock.now(),
      pageSize: 7,
    });
    const seen: string[] = [];
    for await (const chunk of lines)
      for (const line of chunk.trimEnd().split('\n')) seen.push(JSON.parse(line).id);
    expect(seen).toEqual([...made].sort());
  });
});
