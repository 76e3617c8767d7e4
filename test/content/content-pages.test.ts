import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';

let t: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

const terms = { locale: 'en', title: 'Terms of use', body: '# Terms\n\nVersion one.' };
const publicUrl = (tenantId: string, key: string, query = '') => `/t/${tenantId}/content/${key}${query}`;

interface AuditEntry {
  action: string;
  resourceId: string;
  details: Record<string, unknown>;
}
async function auditOf(own: TestTenant): Promise<AuditEntry[]> {
  const res = await api(t, own.keys.admin).get('/audit-logs?resourceType=content&sort=createdAt');
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('content: admin writes and versions', () => {
  it('creates (201, v1), replaces (200, v2), patches (v3), lists versions and restores (v4), all audited', async () => {
    const own = await createTestTenant(t.deps);
    const admin = api(t, own.keys.admin);

    const created = await admin.put('/admin/content/terms', terms);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data).toMatchObject({
      key: 'terms',
      locale: 'en',
      status: 'draft',
      version: 1,
      publishedAt: null,
    });
    expect(created.json().nextActions.map((a: { rel: string }) => a.rel)).toEqual([
      'self',
      'update',
      'versions',
      'list',
    ]);

    const replaced = await admin.put('/admin/content/terms', { ...terms, body: 'Version two.' });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json().data).toMatchObject({
      version: 2,
      body: 'Version two.',
      id: created.json().data.id,
    });

    const patched = await admin.patch('/admin/content/terms?locale=en', { title: 'Terms' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data).toMatchObject({ version: 3, title: 'Terms', body: 'Version two.' });

    const versions = await admin.get('/admin/content/terms/versions');
    expect(versions.statusCode, versions.body).toBe(200);
    expect(versions.json().data.map((v: { version: number; title: string }) => [v.version, v.title])).toEqual(
      [
        [3, 'Terms'],
        [2, 'Terms of use'],
        [1, 'Terms of use'],
      ],
    );

    const restored = await admin.post('/admin/content/terms/versions/1/restore');
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json().data).toMatchObject({
      version: 4,
      title: 'Terms of use',
      body: terms.body,
      status: 'draft',
    });

    const read = await admin.get('/admin/content/terms?locale=en');
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toEqual(restored.json().data);

    const audit = await auditOf(own);
    expect(audit.map((a) => a.action)).toEqual([
      'content.create',
      'content.update',
      'content.update',
      'content.restore',
    ]);
    expect(audit[0]).toMatchObject({
      resourceId: 'terms/en',
      details: { after: { version: 1, status: 'draft' } },
    });
    expect(audit[2]?.details).toEqual({
      before: { title: 'Terms of use', version: 2 },
      after: { title: 'Terms', version: 3 },
    });
    expect(audit[3]?.details).toMatchObject({ restoredVersion: 1 });
  });

  it('404s an unknown version or entry, and leaves nothing written', async () => {
    const own = await createTestTenant(t.deps);
    const admin = api(t, own.keys.admin);
    await admin.put('/admin/content/faq', terms);
    const missingVersion = await admin.post('/admin/content/faq/versions/9/restore');
    expect(missingVersion.statusCode).toBe(404);
    expect(errorBody(missingVersion).code).toBe('not_found');
    expect((await admin.patch('/admin/content/nope', { title: 'x' })).statusCode).toBe(404);
    expect((await admin.get('/admin/content/faq?locale=de')).statusCode).toBe(404);
    expect((await admin.get('/admin/content/faq')).json().data.version).toBe(1);
    expect((await auditOf(own)).map((a) => a.action)).toEqual(['content.create']);
  });

  it('lists newest first with status and locale filters and cursor paging', async () => {
    const own = await createTestTenant(t.deps);
    const admin = api(t, own.keys.admin);
    await admin.put('/admin/content/terms', { ...terms, status: 'published' });
    await admin.put('/admin/content/terms', { ...terms, locale: 'de', title: 'AGB' });
    await admin.put('/admin/content/privacy', { ...terms, title: 'Privacy', status: 'published' });

    const all = await admin.get('/admin/content');
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().data).toHaveLength(3);
    const published = await admin.get('/admin/content?status=published');
    expect(
      published
        .json()
        .data.map((e: { key: string }) => e.key)
        .sort(),
    ).toEqual(['privacy', 'terms']);
    const german = await admin.get('/admin/content?locale=de');
    expect(german.json().data.map((e: { title: string }) => e.title)).toEqual(['AGB']);

    const first = await admin.get('/admin/content?limit=2');
    expect(first.json().data).toHaveLength(2);
    const second = await admin.get(`/admin/content?limit=2&cursor=${first.json().meta.nextCursor}`);
    expect(second.json().data).toHaveLength(1);
    expect(second.json().meta.nextCursor).toBeNull();
  });

  it('deletes one locale with its versions (204), audited', async () => {
    const own = await createTestTenant(t.deps);
    const admin = api(t, own.keys.admin);
    await admin.put('/admin/content/returns', terms);
    await admin.put('/admin/content/returns', { ...terms, locale: 'fr' });
    const deleted = await admin.delete('/admin/content/returns?locale=fr');
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await admin.get('/admin/content/returns?locale=fr')).statusCode).toBe(404);
    expect((await admin.get('/admin/content/returns?locale=en')).statusCode).toBe(200);
    expect((await admin.delete('/admin/content/returns?locale=fr')).statusCode).toBe(404);
    expect((await auditOf(own)).map((a) => a.action)).toEqual([
      'content.create',
      'content.create',
      'content.delete',
    ]);
  });
});

describe('content: input and access', () => {
  it('400 names the field and rule for a bad key, locale, title or status', async () => {
    const admin = api(t, tenant.keys.admin);
    const badKey = await admin.put('/admin/content/Bad_Key', terms);
    expect(badKey.statusCode).toBe(400);
    expect(errorBody(badKey).details?.[0]).toMatchObject({ field: 'path.key', rule: 'pattern' });
    const longKey = await admin.put(`/admin/content/${'a'.repeat(65)}`, terms);
    expect(errorBody(longKey).details?.[0]).toMatchObject({ field: 'path.key', rule: 'maxLength' });
    const badLocale = await admin.put('/admin/content/terms', { ...terms, locale: 'english' });
    expect(badLocale.statusCode).toBe(400);
    expect(errorBody(badLocale).details?.[0]).toMatchObject({ field: 'locale', rule: 'pattern' });
    const badQueryLocale = await admin.get('/admin/content/terms?locale=en_US');
    expect(errorBody(badQueryLocale).details?.[0]).toMatchObject({ field: 'query.locale', rule: 'pattern' });
    const noTitle = await admin.put('/admin/content/terms', { body: 'x' });
    expect(errorBody(noTitle).details?.[0]).toMatchObject({ field: 'title', rule: 'required' });
    const badStatus = await admin.patch('/admin/content/terms', { status: 'live' });
    expect(badStatus.statusCode).toBe(400);
    expect(errorBody(badStatus).details?.[0]).toMatchObject({ field: 'status' });
    expect((await admin.get('/admin/content')).json().data).toEqual([]);
  });

  it('admin routes need the admin scope (403 for read and commerce keys; 401 without a key)', async () => {
    for (const key of [tenant.keys.read, tenant.keys.commerce]) {
      const res = await api(t, key).put('/admin/content/terms', terms);
      expect(res.statusCode).toBe(403);
      expect(errorBody(res).code).toBe('forbidden');
      expect((await api(t, key).get('/admin/content')).statusCode).toBe(403);
    }
    expect((await api(t, null).get('/admin/content')).statusCode).toBe(401);
  });

  it('another tenant’s entries are 404 on every route', async () => {
    const owner = await createTestTenant(t.deps);
    const other = await createTestTenant(t.deps);
    await api(t, owner.keys.admin).put('/admin/content/terms', { ...terms, status: 'published' });
    const admin = api(t, other.keys.admin);
    expect((await admin.get('/admin/content/terms')).statusCode).toBe(404);
    expect((await admin.patch('/admin/content/terms', { title: 'x' })).statusCode).toBe(404);
    expect((await admin.get('/admin/content/terms/versions')).statusCode).toBe(404);
    expect((await admin.post('/admin/content/terms/versions/1/restore')).statusCode).toBe(404);
    expect((await admin.delete('/admin/content/terms')).statusCode).toBe(404);
    expect((await api(t, other.keys.read).get('/content/terms')).statusCode).toBe(404);
    expect((await admin.get('/admin/content')).json().data).toEqual([]);
    expect((await api(t, owner.keys.read).get('/content/terms')).statusCode).toBe(200);
  });

  it('replays a retried PUT with the same Idempotency-Key instead of writing a second version', async () => {
    const own = await createTestTenant(t.deps);
    const admin = api(t, own.keys.admin);
    const first = await admin.put('/admin/content/terms', terms, { idempotencyKey: 'terms-once' });
    const again = await admin.put('/admin/content/terms', terms, { idempotencyKey: 'terms-once' });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect((await admin.get('/admin/content/terms/versions')).json().data).toHaveLength(1);
  });
});

describe('content: public reads', () => {
  it('serves only published entries; unpublishing takes a page off again', async () => {
    const own = await createTestTenant(t.deps);
    const admin = api(t, own.keys.admin);
    await admin.put('/admin/content/shipping', { ...terms, title: 'Shipping' });
    const anyKey = api(t, own.keys.read);
    const noKey = api(t, null);
    expect((await anyKey.get('/content/shipping')).statusCode).toBe(404);
    expect((await noKey.get(publicUrl(own.tenantId, 'shipping'))).statusCode).toBe(404);

    const published = await admin.patch('/admin/content/shipping', { status: 'published' });
    expect(published.json().data).toMatchObject({ status: 'published', publishedAt: expect.any(String) });
    const read = await anyKey.get('/content/shipping');
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().data).toEqual({
      key: 'shipping',
      locale: 'en',
      title: 'Shipping',
      body: terms.body,
      version: 2,
      publishedAt: published.json().data.publishedAt,
    });
    expect(read.headers['content-language']).toBe('en');
    const open = await noKey.get(publicUrl(own.tenantId, 'shipping'));
    expect(open.statusCode, open.body).toBe(200);
    expect(open.json()).toEqual({ data: read.json().data });

    // A draft edit is not served: the public read keeps nothing of it once unpublished.
    expect((await admin.patch('/admin/content/shipping', { status: 'draft' })).statusCode).toBe(200);
    expect((await anyKey.get('/content/shipping')).statusCode).toBe(404);
    expect((await noKey.get(publicUrl(own.tenantId, 'shipping'))).statusCode).toBe(404);
  });

  it('404s an unknown tenant and 400s a malformed tenant id or key without a key', async () => {
    const noKey = api(t, null);
    expect((await noKey.get(publicUrl('00000000-0000-4000-8000-000000000000', 'terms'))).statusCode).toBe(
      404,
    );
    const badTenant = await noKey.get(publicUrl('not-a-uuid', 'terms'));
    expect(badTenant.statusCode).toBe(400);
    expect(errorBody(badTenant).details?.[0]).toMatchObject({ field: 'path.tenantId' });
    const badKey = await noKey.get(publicUrl(tenant.tenantId, 'Terms!'));
    expect(errorBody(badKey).details?.[0]).toMatchObject({ field: 'path.key', rule: 'pattern' });
  });

  it('picks the locale: ?locale=, then Accept-Language, then the tenant default, then en, then any published locale', async () => {
    const own = await createTestTenant(t.deps);
    const admin = api(t, own.keys.admin);
    for (const [locale, title] of [
      ['en', 'Terms'],
      ['de', 'AGB'],
      ['fr-CA', 'Conditions'],
    ] as const)
      await admin.put('/admin/content/terms', { locale, title, body: title, status: 'published' });
    await admin.put('/admin/content/terms', { locale: 'es', title: 'Términos (borrador)', body: 'x' });
    const reader = api(t, own.keys.read);
    const titleFor = async (query: string, acceptLanguage?: string) => {
      const res = await reader.get(`/content/terms${query}`, {
        headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {},
      });
      expect(res.statusCode, res.body).toBe(200);
      return [res.json().data.title, res.headers['content-language']];
    };
    expect(await titleFor('?locale=de')).toEqual(['AGB', 'de']);
    expect(await titleFor('?locale=de-AT')).toEqual(['AGB', 'de']);
    expect(await titleFor('', 'fr;q=0.9, de;q=0.5')).toEqual(['Conditions', 'fr-CA']);
    expect(await titleFor('', 'de-CH, en;q=0.8')).toEqual(['AGB', 'de']);
    expect(await titleFor('?locale=es')).toEqual(['Terms', 'en']);
    expect(await titleFor('', 'ja')).toEqual(['Terms', 'en']);
    expect(await titleFor('')).toEqual(['Terms', 'en']);
    // The tenant's default locale comes before `en`.
    expect((await admin.patch('/admin/settings', { defaultLocale: 'fr-CA' })).statusCode).toBe(200);
    expect(await titleFor('', 'ja')).toEqual(['Conditions', 'fr-CA']);
    await admin.patch('/admin/settings', { defaultLocale: 'en' });

    // Without an `en`: any published locale (the first by tag).
    await admin.delete('/admin/content/terms?locale=en');
    expect(await titleFor('?locale=ja')).toEqual(['AGB', 'de']);

    const badLocale = await reader.get('/content/terms?locale=xx_YY');
    expect(badLocale.statusCode).toBe(400);
    expect(errorBody(badLocale).details?.[0]).toMatchObject({ field: 'query.locale', rule: 'pattern' });
  });
});
