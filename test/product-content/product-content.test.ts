import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { unpublishedProductIds } from '../../src/modules/product-content/index.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost, seatPlan } from '../support/catalog-fixtures.js';

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
const clock = new ManualClock(new Date('2026-04-20T09:00:00.000Z'));

const english = {
  title: 'Chef’s knife 20 cm',
  description:
    'Forged **steel**.\n\n<script>alert(1)</script>\n\n[docs](javascript:alert(2)) <img src=x onerror=alert(3)>',
  media: [
    { url: 'https://cdn.acme.example/b.jpg', type: 'image', alt: 'Side', position: 2 },
    { url: 'https://cdn.acme.example/a.mp4', type: 'video', alt: 'In use', position: 1 },
  ],
  brand: 'Acme',
  gtin: '4006381333931',
  mpn: 'CK-20',
  condition: 'new',
  category: 'Home & Garden > Kitchen & Dining',
  attributes: [
    { key: 'material', type: 'string', value: 'steel' },
    { key: 'blade_cm', type: 'number', value: 20 },
    { key: 'dishwasher_safe', type: 'boolean', value: false },
  ],
};

const newProduct = async (owner: TestTenant = tenant) =>
  (await adminPost(t, owner, 'products', seatPlan({ name: `P ${Math.random()}` }))).id as string;

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

describe('product content: writes per locale', () => {
  it('puts and patches content per locale, each change a version, audited', async () => {
    const id = await newProduct();
    const admin = api(t, tenant.keys.admin);
    const put = await admin.put(`/admin/products/${id}/content/en`, english);
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data).toMatchObject({ productId: id, slug: null, status: 'published', version: 1 });
    expect(put.json().data.locales).toEqual([{ locale: 'en', ...english }]);

    const fr = await admin.put(`/admin/products/${id}/content/fr`, { title: 'Couteau de chef' });
    expect(fr.statusCode, fr.body).toBe(200);
    expect(fr.json().data.version).toBe(2);
    expect(fr.json().data.locales[1]).toEqual({
      locale: 'fr',
      title: 'Couteau de chef',
      description: null,
      media: [],
      brand: null,
      gtin: null,
      mpn: null,
      condition: null,
      category: null,
      attributes: [],
    });

    const patched = await admin.patch(`/admin/products/${id}/content/fr`, {
      brand: 'Acme',
      gtin: '96385074',
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data.version).toBe(3);
    expect(patched.json().data.locales[1]).toMatchObject({
      title: 'Couteau de chef',
      brand: 'Acme',
      gtin: '96385074',
    });

    // The same values again: nothing changes, no version, no audit entry.
    const same = await admin.patch(`/admin/products/${id}/content/fr`, { brand: 'Acme' });
    expect(same.json().data.version).toBe(3);

    const read = await admin.get(`/admin/products/${id}/content`);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toEqual(patched.json().data);

    const audit = await admin.get(`/audit-logs?resourceType=product&resourceId=${id}&sort=createdAt`);
    const entries = audit.json().data as { action: string; details: Record<string, unknown> }[];
    expect(
      entries.filter((e) => e.action.startsWith('product_content')).map((e) => e.details.version),
    ).toEqual([1, 2, 3]);
    expect(entries.at(-1)).toMatchObject({
      action: 'product_content.update',
      details: {
        locale: 'fr',
        before: { 'locales.fr': { brand: null } },
        after: { 'locales.fr': { brand: 'Acme' } },
      },
    });
  });

  it('PATCH of a locale without content is 404 and writes nothing', async () => {
    const id = await newProduct();
    const res = await api(t, tenant.keys.admin).patch(`/admin/products/${id}/content/de`, {
      title: 'Messer',
    });
    expect(res.statusCode, res.body).toBe(404);
    expect((await api(t, tenant.keys.admin).get(`/admin/products/${id}/content`)).statusCode).toBe(404);
  });

  it.each([
    { field: 'gtin', value: '4006381333932', rule: 'checkDigit' },
    { field: 'gtin', value: '12345', rule: 'pattern' },
    { field: 'title', value: '', rule: 'minLength' },
    { field: 'category', value: 'Home >> Kitchen', rule: 'pattern' },
    { field: 'condition', value: 'mint', rule: undefined },
  ])('refuses $field $value with 400 naming the field, nothing written', async ({ field, value, rule }) => {
    const id = await newProduct();
    const res = await api(t, tenant.keys.admin).put(`/admin/products/${id}/content/en`, {
      ...english,
      [field]: value,
    });
    expect(res.statusCode, res.body).toBe(400);
    const body = errorBody(res);
    expect(body.code).toBe('validation_failed');
    expect(body.details?.map((d) => d.field)).toContain(field);
    if (rule) expect(body.details?.find((d) => d.field === field)?.rule).toBe(rule);
    expect((await api(t, tenant.keys.admin).get(`/admin/products/${id}/content`)).statusCode).toBe(404);
  });

  it('refuses http media, a repeated attribute key and a value not of its type', async () => {
    const id = await newProduct();
    const admin = api(t, tenant.keys.admin);
    const http = await admin.put(`/admin/products/${id}/content/en`, {
      title: 'x',
      media: [{ url: 'http://cdn.acme.example/a.jpg', type: 'image', alt: '', position: 0 }],
    });
    expect(http.statusCode).toBe(400);
    expect(errorBody(http).details?.map((d) => d.field)).toContain('media.0.url');
    const repeated = await admin.put(`/admin/products/${id}/content/en`, {
      title: 'x',
      attributes: [
        { key: 'a', type: 'string', value: 'x' },
        { key: 'a', type: 'string', value: 'y' },
      ],
    });
    expect(errorBody(repeated).details).toEqual([
      expect.objectContaining({ field: 'attributes.1.key', rule: 'unique' }),
    ]);
    const typed = await admin.put(`/admin/products/${id}/content/en`, {
      title: 'x',
      attributes: [{ key: 'weight', type: 'number', value: 'heavy' }],
    });
    expect(errorBody(typed).details).toEqual([
      expect.objectContaining({ field: 'attributes.0.value', rule: 'type' }),
    ]);
  });

  it('a slug is unique per tenant: 409 naming the field; another tenant may use it', async () => {
    const [a, b] = [await newProduct(), await newProduct()];
    const admin = api(t, tenant.keys.admin);
    const first = await admin.patch(`/admin/products/${a}/content`, { slug: 'chef-knife' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toMatchObject({
      slug: 'chef-knife',
      status: 'published',
      version: 1,
      locales: [],
    });
    const taken = await admin.patch(`/admin/products/${b}/content`, { slug: 'chef-knife' });
    expect(taken.statusCode, taken.body).toBe(409);
    expect(errorBody(taken)).toMatchObject({
      code: 'conflict',
      details: [{ field: 'slug', rule: 'unique' }],
    });
    expect((await admin.get(`/admin/products/${b}/content`)).statusCode).toBe(404);
    const elsewhere = await api(t, other.keys.admin).patch(
      `/admin/products/${await newProduct(other)}/content`,
      {
        slug: 'chef-knife',
      },
    );
    expect(elsewhere.statusCode, elsewhere.body).toBe(200);
    const bad = await admin.patch(`/admin/products/${b}/content`, { slug: 'Chef Knife' });
    expect(errorBody(bad).details?.map((d) => d.field)).toContain('slug');
  });
});

describe('product content: reading in a locale', () => {
  let id: string;
  beforeAll(async () => {
    id = await newProduct();
    const admin = api(t, tenant.keys.admin);
    for (const [locale, title] of [
      ['en', english.title],
      ['fr-CA', 'Couteau (Canada)'],
      ['de', 'Kochmesser'],
    ] as const)
      expect(
        (await admin.put(`/admin/products/${id}/content/${locale}`, { ...english, title })).statusCode,
      ).toBe(200);
  });

  const read = (query = '', headers: Record<string, string> = {}) =>
    api(t, tenant.keys.read).get(`/products/${id}/content${query}`, { headers });

  it('picks ?locale=, then Accept-Language, with fallback to the language and the tenant default', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['?locale=de', { 'accept-language': 'fr-CA' }, 'de'],
      ['', { 'accept-language': 'it;q=0.9, fr-CA;q=0.8, de;q=0.1' }, 'fr-CA'],
      ['', { 'accept-language': 'de-AT' }, 'de'],
      ['', { 'accept-language': 'fr-FR' }, 'fr-CA'],
      ['?locale=ja', {}, 'en'],
      ['', {}, 'en'],
    ];
    for (const [query, headers, locale] of cases) {
      const res = await read(query, headers);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.locale, `${query} ${JSON.stringify(headers)}`).toBe(locale);
      expect(res.headers['content-language']).toBe(locale);
    }
    const admin = api(t, tenant.keys.admin);
    expect((await admin.patch('/admin/settings', { defaultLocale: 'de' })).json().data.defaultLocale).toBe(
      'de',
    );
    expect((await read('?locale=ja')).json().data.locale).toBe('de');
    const settings = await admin.get('/admin/settings');
    expect([settings.statusCode, settings.json().data.defaultLocale]).toEqual([200, 'de']);
    expect((await admin.patch('/admin/settings', { defaultLocale: 'en_US' })).statusCode).toBe(400);
    await admin.patch('/admin/settings', { defaultLocale: 'en' });
  });

  it('gives the description as Markdown and as sanitised HTML, media in position order', async () => {
    const data = (await read('?locale=en')).json().data;
    expect(data.description).toBe(english.description);
    expect(data.descriptionHtml).toContain('<strong>steel</strong>');
    expect(data.descriptionHtml).not.toMatch(/<script|alert\(1\)|javascript:|onerror|<img/);
    expect(data.media.map((m: { position: number }) => m.position)).toEqual([1, 2]);
    expect(data.availableLocales).toEqual(['de', 'en', 'fr-CA']);
    expect(data).toMatchObject({
      productId: id,
      gtin: english.gtin,
      attributes: english.attributes,
      version: 3,
    });
  });

  it('a draft is not offered: 404 to read keys, shown to admin keys, listed by unpublishedProductIds', async () => {
    const admin = api(t, tenant.keys.admin);
    const withoutContent = await newProduct();
    expect((await admin.patch(`/admin/products/${id}/content`, { status: 'draft' })).statusCode).toBe(200);
    expect((await read()).statusCode).toBe(404);
    expect((await admin.get(`/products/${id}/content`)).json().data.locale).toBe('en');
    expect(await unpublishedProductIds(t.deps.db, tenant.tenantId, [id, withoutContent])).toEqual(
      new Set([id]),
    );
    await admin.patch(`/admin/products/${id}/content`, { status: 'published' });
    expect((await read()).statusCode).toBe(200);
    expect((await unpublishedProductIds(t.deps.db, tenant.tenantId, [id])).size).toBe(0);
  });

  it('a product without content is 404; a validation error names the query field', async () => {
    expect((await api(t, tenant.keys.read).get(`/products/${await newProduct()}/content`)).statusCode).toBe(
      404,
    );
    const bad = await read('?locale=EN');
    expect(bad.statusCode).toBe(400);
    expect(errorBody(bad).details?.[0]?.field).toContain('locale');
  });
});

describe('product content: versions and restore', () => {
  it('lists every version newest first and restores one as a new version', async () => {
    const id = await newProduct();
    const admin = api(t, tenant.keys.admin);
    await admin.put(`/admin/products/${id}/content/en`, { title: 'One' });
    clock.advance(1000);
    await admin.patch(`/admin/products/${id}/content`, { slug: `v-${id.slice(-8)}`, status: 'draft' });
    clock.advance(1000);
    await admin.put(`/admin/products/${id}/content/en`, { title: 'Three' });
    const list = await admin.get(`/admin/products/${id}/content/versions`);
    expect(list.statusCode, list.body).toBe(200);
    const versions = list.json().data as { version: number; change: string; locales: { title: string }[] }[];
    expect(versions.map((v) => [v.version, v.change, v.locales[0]?.title])).toEqual([
      [3, 'put', 'Three'],
      [2, 'settings', 'One'],
      [1, 'put', 'One'],
    ]);
    expect(list.json().nextActions[0]).toMatchObject({
      rel: 'restore',
      method: 'POST',
      href: `/api/v1/admin/products/${id}/content/versions/3/restore`,
    });

    const restored = await admin.post(`/admin/products/${id}/content/versions/1/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json().data).toMatchObject({
      version: 4,
      slug: null,
      status: 'published',
      locales: [{ title: 'One' }],
    });
    expect((await admin.get(`/admin/products/${id}/content/versions`)).json().data).toHaveLength(4);
    const audit = await admin.get(`/audit-logs?action=product_content.restore&resourceId=${id}`);
    expect(audit.json().data).toMatchObject([{ details: { restoredVersion: 1, version: 4 } }]);

    expect((await admin.post(`/admin/products/${id}/content/versions/9/restore`)).statusCode).toBe(404);
  });

  it('restoring a slug another product took since is 409, nothing written', async () => {
    const [a, b] = [await newProduct(), await newProduct()];
    const admin = api(t, tenant.keys.admin);
    const slug = `s-${a.slice(-8)}`;
    await admin.patch(`/admin/products/${a}/content`, { slug });
    await admin.patch(`/admin/products/${a}/content`, { slug: null });
    await admin.patch(`/admin/products/${b}/content`, { slug });
    const res = await admin.post(`/admin/products/${a}/content/versions/1/restore`);
    expect(res.statusCode, res.body).toBe(409);
    expect(errorBody(res).details?.[0]?.field).toBe('slug');
    expect((await admin.get(`/admin/products/${a}/content`)).json().data.version).toBe(2);
  });
});

describe('product content: tenants and scopes', () => {
  it('another tenant’s product is 404 on every route; a read or commerce key is 403 on admin writes', async () => {
    const id = await newProduct();
    await api(t, tenant.keys.admin).put(`/admin/products/${id}/content/en`, { title: 'Mine' });
    const foreign = api(t, other.keys.admin);
    expect((await foreign.get(`/products/${id}/content`)).statusCode).toBe(404);
    expect((await foreign.get(`/admin/products/${id}/content`)).statusCode).toBe(404);
    expect((await foreign.put(`/admin/products/${id}/content/en`, { title: 'Theirs' })).statusCode).toBe(404);
    expect((await foreign.patch(`/admin/products/${id}/content/en`, { title: 'Theirs' })).statusCode).toBe(
      404,
    );
    expect((await foreign.patch(`/admin/products/${id}/content`, { status: 'draft' })).statusCode).toBe(404);
    expect((await foreign.post(`/admin/products/${id}/content/versions/1/restore`)).statusCode).toBe(404);
    expect((await foreign.get(`/admin/products/${id}/content/versions`)).statusCode).toBe(404);

    for (const key of [tenant.keys.read, tenant.keys.commerce]) {
      const caller = api(t, key);
      expect((await caller.put(`/admin/products/${id}/content/en`, { title: 'x' })).statusCode).toBe(403);
      expect((await caller.patch(`/admin/products/${id}/content/en`, { title: 'x' })).statusCode).toBe(403);
      expect((await caller.patch(`/admin/products/${id}/content`, { status: 'draft' })).statusCode).toBe(403);
      expect((await caller.post(`/admin/products/${id}/content/versions/1/restore`)).statusCode).toBe(403);
      expect((await caller.get(`/admin/products/${id}/content/versions`)).statusCode).toBe(403);
    }
    const mine = await api(t, tenant.keys.read).get(`/products/${id}/content`);
    expect(mine.json().data).toMatchObject({ title: 'Mine', version: 1 });
  });
});
