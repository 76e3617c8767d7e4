import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSellerProfile } from '../../src/modules/seller/index.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';

let t: TestApp;
let tenant: TestTenant;
const TENANT_NAME = 'Acme Outfitters Inc';

const profile = {
  displayName: 'Acme Outfitters',
  supportEmail: 'support@acme.example',
  supportUrl: 'https://acme.example/help',
  termsOfUseUrl: 'https://acme.example/terms',
  privacyPolicyUrl: 'https://acme.example/privacy',
  returnPolicyUrl: 'https://acme.example/returns',
};

const defaults = (name: string) => ({
  displayName: name,
  supportEmail: null,
  supportUrl: null,
  termsOfUseUrl: null,
  privacyPolicyUrl: null,
  returnPolicyUrl: null,
  acpRequestKeys: [],
  updatedAt: null,
});

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps, { name: TENANT_NAME });
});
afterAll(() => t.app.close());

describe('seller profile: GET /seller', () => {
  it('reads as its defaults before it is ever set: the tenant’s name, no links', async () => {
    const res = await api(t, tenant.keys.read).get('/seller');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(defaults(TENANT_NAME));
    expect(res.json().nextActions).toMatchObject([
      { rel: 'self', method: 'GET', href: '/api/v1/seller', requiredScope: 'read', allowed: true },
      { rel: 'update', method: 'PATCH', href: '/api/v1/seller', requiredScope: 'admin', allowed: false },
    ]);
    expect(await getSellerProfile(t.deps.db, tenant.tenantId)).toEqual({
      ...defaults(TENANT_NAME),
      updatedAt: undefined,
    });
  });
});

describe('seller profile: PATCH /seller', () => {
  it('sets fields, reads them back, keeps what it is not given and audits a before/after diff', async () => {
    const own = await createTestTenant(t.deps, { name: 'Patch Co' });
    const admin = api(t, own.keys.admin);
    const first = await admin.patch('/seller', profile);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toEqual({ ...profile, acpRequestKeys: [], updatedAt: expect.any(String) });

    const second = await admin.patch('/seller', { returnPolicyUrl: null, displayName: null });
    expect(second.statusCode, second.body).toBe(200);
    const expected = { ...profile, displayName: 'Patch Co', returnPolicyUrl: null, acpRequestKeys: [] };
    expect(second.json().data).toEqual({ ...expected, updatedAt: expect.any(String) });

    const read = await api(t, own.keys.read).get('/seller');
    expect(read.json().data).toEqual(second.json().data);
    const { updatedAt: _updatedAt, ...fields } = read.json().data;
    expect(await getSellerProfile(t.deps.db, own.tenantId)).toEqual(fields);

    const audit = await admin.get('/audit-logs?resourceType=seller&sort=createdAt');
    expect(audit.statusCode).toBe(200);
    const entries = audit.json().data as {
      action: string;
      resourceId: string;
      actor: object;
      details: object;
    }[];
    expect(entries.map((e) => e.action)).toEqual(['seller.update', 'seller.update']);
    expect(entries[0]).toMatchObject({ resourceId: own.tenantId, actor: { keyId: own.keyIds.admin } });
    expect(entries[0]?.details).toEqual({
      before: {
        displayName: 'Patch Co',
        supportEmail: null,
        supportUrl: null,
        termsOfUseUrl: null,
        privacyPolicyUrl: null,
        returnPolicyUrl: null,
      },
      after: profile,
    });
    expect(entries[1]?.details).toEqual({
      before: { displayName: 'Acme Outfitters', returnPolicyUrl: 'https://acme.example/returns' },
      after: { displayName: 'Patch Co', returnPolicyUrl: null },
    });
  });

  it('replays a retried request with the same Idempotency-Key instead of applying it twice', async () => {
    const own = await createTestTenant(t.deps);
    const admin = api(t, own.keys.admin);
    const body = { supportEmail: 'help@once.example' };
    const first = await admin.patch('/seller', body, { idempotencyKey: 'seller-once' });
    const again = await admin.patch('/seller', body, { idempotencyKey: 'seller-once' });
    expect(again.statusCode).toBe(200);
    expect(again.headers['x-idempotency-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const audit = await admin.get('/audit-logs?resourceType=seller');
    expect(audit.json().data).toHaveLength(1);
  });

  it.each([
    { field: 'supportEmail', value: 'not an email', what: 'not an email' },
    { field: 'supportUrl', value: 'http://acme.example/help', what: 'plain http' },
    { field: 'termsOfUseUrl', value: 'acme.example/terms', what: 'not absolute' },
    { field: 'privacyPolicyUrl', value: `https://acme.example/${'p'.repeat(2048)}`, what: 'too long' },
    { field: 'returnPolicyUrl', value: 42, what: 'a number' },
    { field: 'displayName', value: '', what: 'empty' },
    { field: 'displayName', value: 'x'.repeat(201), what: 'over 200 characters' },
  ])('refuses $field ($what) with 400 naming the field, and changes nothing', async ({ field, value }) => {
    const own = await createTestTenant(t.deps);
    const res = await api(t, own.keys.admin).patch('/seller', { [field]: value });
    expect(res.statusCode, res.body).toBe(400);
    const body = errorBody(res);
    expect(body.code).toBe('validation_failed');
    expect(body.details?.map((d) => d.field)).toContain(field);
    const read = await api(t, own.keys.read).get('/seller');
    expect(read.json().data.updatedAt).toBeNull();
  });

  it('refuses an empty body and unknown fields', async () => {
    const admin = api(t, tenant.keys.admin);
    expect((await admin.patch('/seller', {})).statusCode).toBe(400);
    const unknown = await admin.patch('/seller', { logoUrl: 'https://acme.example/logo.png' });
    expect(unknown.statusCode).toBe(400);
    expect(errorBody(unknown).details?.map((d) => d.field)).toContain('logoUrl');
  });

  it('needs an admin key to change it (403), a read key to read it (401 without one)', async () => {
    for (const key of [tenant.keys.read, tenant.keys.commerce]) {
      const res = await api(t, key).patch('/seller', { supportEmail: 'x@y.example' });
      expect(res.statusCode).toBe(403);
      expect(errorBody(res).code).toBe('forbidden');
    }
    expect((await api(t, null).get('/seller')).statusCode).toBe(401);
    expect((await api(t, tenant.keys.read).get('/seller')).json().data.supportEmail).toBeNull();
  });

  it('keeps tenants apart: one tenant’s profile is not another’s', async () => {
    const a = await createTestTenant(t.deps, { name: 'Tenant A' });
    const b = await createTestTenant(t.deps, { name: 'Tenant B' });
    expect((await api(t, a.keys.admin).patch('/seller', profile)).statusCode).toBe(200);
    const other = await api(t, b.keys.read).get('/seller');
    expect(other.json().data).toEqual(defaults('Tenant B'));
    expect((await api(t, a.keys.read).get('/seller')).json().data.displayName).toBe('Acme Outfitters');
  });
});
