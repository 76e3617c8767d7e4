import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { assertUcp } from './schemas/ucp/validator.js';

// Discovery: the business profile of a tenant, with its key at /.well-known/ucp and without one
// at /ucp/t/{tenant id}/.well-known/ucp (overview.md, "Profile Structure" and "Hosting").

let t: TestApp;
let shop: TestTenant;

beforeAll(async () => {
  t = await startApp({ config: { publicBaseUrl: 'https://shop.example.com' } });
  shop = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

const wellKnown = (headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: '/.well-known/ucp', headers });

describe('GET /.well-known/ucp', () => {
  it('answers the key’s tenant’s business profile, cacheable, valid against UCP’s profile schema', async () => {
    const res = await wellKnown({ authorization: `Bearer ${shop.keys.read}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const profile = res.json();
    assertUcp('businessProfile', profile);
    expect(profile.ucp.version).toBe('2026-04-08');
    expect(profile.ucp.services['dev.ucp.shopping']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ transport: 'rest', endpoint: 'https://shop.example.com/ucp/v1' }),
        expect.objectContaining({ transport: 'mcp', endpoint: 'https://shop.example.com/ucp/mcp' }),
      ]),
    );
    expect(Object.keys(profile.ucp.capabilities).sort()).toEqual([
      'dev.ucp.shopping.catalog.lookup',
      'dev.ucp.shopping.catalog.search',
      'dev.ucp.shopping.checkout',
      'dev.ucp.shopping.discount',
      'dev.ucp.shopping.fulfillment',
      'dev.ucp.shopping.order',
    ]);
    expect(profile.ucp.capabilities['dev.ucp.shopping.discount'][0].extends).toBe(
      'dev.ucp.shopping.checkout',
    );
    expect(profile.ucp.capabilities['dev.ucp.shopping.fulfillment'][0].extends).toBe(
      'dev.ucp.shopping.checkout',
    );
    expect(profile.ucp.payment_handlers['com.example.sandbox_card']).toEqual([
      expect.objectContaining({ id: 'sandbox_card', version: '2026-04-08' }),
    ]);
  });

  it('binds every spec and schema URL to its name’s authority (dev.ucp.* on ucp.dev, com.example.* on example.com)', async () => {
    const { ucp } = (await wellKnown({ authorization: `Bearer ${shop.keys.read}` })).json();
    const origin = (name: string) => `https://${name.split('.').slice(0, 2).reverse().join('.')}`;
    for (const registry of [ucp.capabilities, ucp.payment_handlers, ucp.services])
      for (const [name, entries] of Object.entries(
        registry as Record<string, { spec?: string; schema?: string }[]>,
      ))
        for (const entry of entries)
          for (const url of [entry.spec, entry.schema].filter(Boolean))
            expect(new URL(url as string).origin, `${name}: ${url}`).toBe(origin(name));
  });

  it('publishes the seller’s EC P-256 signing keys', async () => {
    const { signing_keys } = (await wellKnown({ authorization: `Bearer ${shop.keys.read}` })).json();
    for (const key of signing_keys)
      expect(key).toEqual(expect.objectContaining({ kty: 'EC', crv: 'P-256', use: 'sig', alg: 'ES256' }));
  });

  it('takes the key as X-API-Key too, with the same answer', async () => {
    const bearer = await wellKnown({ authorization: `Bearer ${shop.keys.read}` });
    const apiKey = await wellKnown({ 'x-api-key': shop.keys.read });
    expect(apiKey.statusCode).toBe(200);
    expect(apiKey.json()).toEqual(bearer.json());
    expect(apiKey.headers.vary).toContain('X-API-Key');
  });

  it('without a key: 401 in UCP’s error shape, naming the public path', async () => {
    const res = await wellKnown();
    expect(res.statusCode).toBe(401);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    assertUcp('error', body);
    expect(body.messages[0].code).toBe('unauthorized');
    expect(body.messages[0].content).toContain('/ucp/t/');
  });

  it('an unknown key: 401', async () => {
    const res = await wellKnown({ 'x-api-key': 'cak_test_nope' });
    expect(res.statusCode).toBe(401);
    assertUcp('error', res.json());
  });
});

describe('GET /ucp/t/{tenant}/.well-known/ucp', () => {
  it('answers the same profile without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/ucp/t/${shop.tenantId}/.well-known/ucp` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const keyed = await wellKnown({ authorization: `Bearer ${shop.keys.read}` });
    expect(res.json()).toEqual(keyed.json());
  });

  it('an unknown tenant is 404, not a redirect', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/ucp/t/0190b000-0000-7000-8000-00000000dead/.well-known/ucp',
    });
    expect(res.statusCode).toBe(404);
    assertUcp('error', res.json());
  });
});
