import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';

describe('admin API keys', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  const admin = (method: 'GET' | 'POST', url: string, payload?: object, key = tenant.keys.admin) =>
    api(t, key).send(method, `/admin/api-keys${url}`, payload);

  it('issues a key once, which then authenticates with its scopes and tier', async () => {
    const res = await admin('POST', '', {
      name: 'checkout agent',
      scopes: ['commerce'],
      rateTier: 'premium',
    });
    expect(res.statusCode).toBe(201);
    const { data, nextActions } = res.json();
    expect(data).toMatchObject({
      tenantId: tenant.tenantId,
      name: 'checkout agent',
      environment: 'sandbox',
      scopes: ['commerce'],
      rateTier: 'premium',
      status: 'active',
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(data.key).toMatch(/^cak_test_[0-9A-Za-z]{32}$/);
    expect(data.keyPrefix).toBe(data.key.slice(0, 13));
    expect(nextActions).toMatchObject([
      {
        rel: 'self',
        method: 'GET',
        href: `/api/v1/admin/api-keys/${data.id}`,
        requiredScope: 'admin',
        allowed: true,
      },
      {
        rel: 'revoke',
        method: 'POST',
        href: `/api/v1/admin/api-keys/${data.id}/revoke`,
        requiredScope: 'admin',
        allowed: true,
      },
      { rel: 'list', method: 'GET', href: '/api/v1/admin/api-keys', requiredScope: 'admin', allowed: true },
    ]);

    const manifest = await t.app.inject({
      method: 'GET',
      url: '/api/v1/manifest',
      headers: bearer(data.key),
    });
    expect(manifest.statusCode).toBe(200);
    expect(manifest.json().data.key).toEqual({
      id: data.id,
      scopes: ['read', 'commerce'],
      rateTier: 'premium',
    });

    const got = await admin('GET', `/${data.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).not.toHaveProperty('key');
    expect(got.json().data).not.toHaveProperty('keyHash');
  });

  it('defaults the rate tier to standard', async () => {
    const res = await admin('POST', '', { name: 'reader', scopes: ['read'] });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.rateTier).toBe('standard');
  });

  it('lists only this tenant’s keys, newest first, without secrets', async () => {
    const other = await createTestTenant(t.deps);
    const res = await admin('GET', '');
    expect(res.statusCode).toBe(200);
    const keys = res.json().data as { id: string; tenantId: string; createdAt: string }[];
    expect(keys.length).toBeGreaterThanOrEqual(3);
    expect(keys.every((k) => k.tenantId === tenant.tenantId)).toBe(true);
    expect(keys.map((k) => k.id)).not.toContain(other.keyIds.read);
    const times = keys.map((k) => Date.parse(k.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(res.body).not.toMatch(/cak_test_[0-9A-Za-z]{32}/);
    expect(res.json().nextActions).toMatchObject([
      {
        rel: 'create',
        method: 'POST',
        href: '/api/v1/admin/api-keys',
        requiredScope: 'admin',
        allowed: true,
      },
    ]);
  });

  it('revokes a key: status, timestamp, no revoke action, idempotent', async () => {
    const created = (await admin('POST', '', { name: 'temp', scopes: ['read'] })).json().data;
    const first = await admin('POST', `/${created.id}/revoke`);
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({
      id: created.id,
      status: 'revoked',
      revokedAt: expect.any(String),
    });
    expect(first.json().nextActions.map((a: { rel: string }) => a.rel)).toEqual(['self', 'list']);
    const again = await admin('POST', `/${created.id}/revoke`);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.revokedAt).toBe(first.json().data.revokedAt);
    const readBack = await admin('GET', `/${created.id}`);
    expect(readBack.json().data.status).toBe('revoked');
    const use = await t.app.inject({ method: 'GET', url: '/api/v1/manifest', headers: bearer(created.key) });
    expect(use.statusCode).toBe(401);
  });

  it('cannot see or revoke another tenant’s key (404)', async () => {
    const other = await createTestTenant(t.deps);
    const revoke = await admin('POST', `/${other.keyIds.read}/revoke`);
    expect(revoke.statusCode).toBe(404);
    expect(errorBody(revoke).code).toBe('not_found');
    const still = await t.app.inject({
      method: 'GET',
      url: '/api/v1/manifest',
      headers: bearer(other.keys.read),
    });
    expect(still.statusCode).toBe(200);
  });

  it('404 for an unknown key id', async () => {
    const res = await admin('GET', '/00000000-0000-7000-8000-000000000000');
    expect(res.statusCode).toBe(404);
  });

  it('rejects invalid bodies naming the field', async () => {
    const cases: [object, string, string][] = [
      [{ name: '', scopes: ['read'] }, 'name', 'minLength'],
      [{ name: 'k', scopes: [] }, 'scopes', 'minItems'],
      [{ name: 'k', scopes: ['read', 'read'] }, 'scopes', 'uniqueItems'],
      [{ name: 'k', scopes: ['read'], rateTier: 'gold' }, 'rateTier', 'enum'],
    ];
    for (const [payload, field, rule] of cases) {
      const res = await admin('POST', '', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorBody(res).details?.[0], JSON.stringify(payload)).toMatchObject({ field, rule });
    }
    const list = await admin('GET', '');
    expect((list.json().data as { name: string }[]).some((k) => k.name === '')).toBe(false);
  });

  it('needs the admin scope', async () => {
    const res = await admin('POST', '', { name: 'x', scopes: ['admin'] }, tenant.keys.commerce);
    expect(res.statusCode).toBe(403);
  });
});
