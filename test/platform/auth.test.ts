import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { issueApiKey } from '../../src/modules/api-keys/index.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { waitFor } from '../support/wait.js';

describe('authentication and scopes', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  const manifest = (headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/api/v1/manifest', headers });

  it('401 unauthorized without a key', async () => {
    const res = await manifest();
    expect(res.statusCode).toBe(401);
    const body = errorBody(res);
    expect(body.code).toBe('unauthorized');
    expect(body.error).toMatch(/Missing API key/);
    expect(body.requestId).toBe(res.headers['x-request-id']);
  });

  it('401 for a header that is not Bearer', async () => {
    const res = await manifest({ authorization: `Basic ${tenant.keys.read}` });
    expect(res.statusCode).toBe(401);
    expect(errorBody(res).error).toMatch(/Malformed Authorization/);
  });

  it('401 for a garbage key', async () => {
    const res = await manifest(bearer('not-a-key'));
    expect(res.statusCode).toBe(401);
    expect(errorBody(res).error).toMatch(/Malformed API key/);
  });

  it('401 for a well-formed key nobody issued', async () => {
    const res = await manifest(bearer(`cak_test_${'A'.repeat(32)}`));
    expect(res.statusCode).toBe(401);
    expect(errorBody(res)).toMatchObject({ code: 'unauthorized', error: 'Unknown API key' });
  });

  it('401 for a key of the other environment, naming the mismatch', async () => {
    const { secret } = await issueApiKey(t.deps.db, tenant.tenantId, {
      name: 'live key',
      scopes: ['admin'],
      rateTier: 'standard',
      environment: 'production',
    });
    expect(secret.startsWith('cak_live_')).toBe(true);
    const res = await manifest(bearer(secret));
    expect(res.statusCode).toBe(401);
    expect(errorBody(res).error).toBe(
      'This is a production key; this deployment serves the sandbox environment',
    );
  });

  it('403 forbidden for a read key on an admin endpoint, naming the scope', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/api-keys',
      headers: bearer(tenant.keys.read),
    });
    expect(res.statusCode).toBe(403);
    expect(errorBody(res)).toMatchObject({
      code: 'forbidden',
      error: 'This operation needs the "admin" scope; the key has read',
    });
  });

  it('403 for a commerce key on an admin endpoint; admin key passes', async () => {
    const denied = await t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/api-keys',
      headers: bearer(tenant.keys.commerce),
    });
    expect(denied.statusCode).toBe(403);
    const ok = await t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/api-keys',
      headers: bearer(tenant.keys.admin),
    });
    expect(ok.statusCode).toBe(200);
  });

  it('scopes nest: an admin key can call read endpoints', async () => {
    const res = await manifest(bearer(tenant.keys.admin));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.key.scopes).toEqual(['read', 'commerce', 'admin']);
  });

  it('auth is checked before the body is parsed (401, not 400, for a bad body without a key)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/api-keys',
      headers: { 'content-type': 'application/json' },
      payload: '{bad',
    });
    expect(res.statusCode).toBe(401);
  });

  it('a revoked key is refused at once on the instance that revoked it', async () => {
    const other = await createTestTenant(t.deps);
    expect((await manifest(bearer(other.keys.read))).statusCode).toBe(200); // now cached
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/api-keys/${other.keyIds.read}/revoke`,
      headers: bearer(other.keys.admin),
    });
    expect(revoke.statusCode).toBe(200);
    const res = await manifest(bearer(other.keys.read));
    expect(res.statusCode).toBe(401);
    expect(errorBody(res)).toMatchObject({ code: 'unauthorized', error: 'This API key has been revoked' });
  });

  // With Redis every instance hears of a revocation at once (test/reliability/multi-instance.test.ts);
  // an instance without it keeps the cache window, as documented.
  it('without Redis, another instance stops accepting a revoked key once its cache entry expires', async () => {
    const clock = new ManualClock();
    const second = await startApp({ clock, config: { apiKeyCacheTtlMs: 5_000, redisUrl: undefined } });
    try {
      const other = await createTestTenant(t.deps);
      const onSecond = () =>
        second.app.inject({ method: 'GET', url: '/api/v1/manifest', headers: bearer(other.keys.read) });
      expect((await onSecond()).statusCode).toBe(200);
      const revoke = await t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/api-keys/${other.keyIds.read}/revoke`,
        headers: bearer(other.keys.admin),
      });
      expect(revoke.statusCode).toBe(200);
      expect((await onSecond()).statusCode).toBe(200); // still within the cache TTL
      clock.advance(5_001);
      expect((await onSecond()).statusCode).toBe(401);
    } finally {
      await second.app.close();
    }
  });

  it('records last use of a key', async () => {
    const other = await createTestTenant(t.deps);
    await manifest(bearer(other.keys.read));
    // Last use is written off the request path: wait for it to be written.
    let lastUsedAt: string | null = null;
    await waitFor(async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/admin/api-keys/${other.keyIds.read}`,
        headers: bearer(other.keys.admin),
      });
      lastUsedAt = res.json().data.lastUsedAt;
      return Boolean(lastUsedAt);
    }, 'last use recorded');
    expect(lastUsedAt).toEqual(expect.any(String));
  });
});
