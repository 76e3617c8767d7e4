import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceClient, retryAfterMs } from '../../packages/client/src/index.js';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';

describe('typed client (packages/client): path calls against a running server', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let baseUrl: string;
  const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
  const sent: Request[] = [];
  const recordingFetch = (input: Request) => {
    sent.push(input.clone());
    return fetch(input);
  };

  beforeAll(async () => {
    t = await startApp({ clock });
    tenant = await createTestTenant(t.deps);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => t.app.close());

  it('calls typed operations with the key and returns data or the error body', async () => {
    const client = createCommerceClient({ baseUrl, apiKey: tenant.keys.read });
    const manifest = await client.GET('/api/v1/manifest');
    expect(manifest.response.status).toBe(200);
    expect(manifest.data?.data.tenant.id).toBe(tenant.tenantId);
    expect(manifest.data?.data.key.scopes).toEqual(['read']);

    const missing = await client.GET('/api/v1/orders/{id}', {
      params: { path: { id: '01900000-0000-7000-8000-000000000999' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: 'not_found', requestId: expect.any(String) });
  });

  it('sends an Idempotency-Key on every write (kept when given) and none on reads', async () => {
    sent.length = 0;
    const client = createCommerceClient({ baseUrl, apiKey: tenant.keys.commerce, fetch: recordingFetch });
    const created = await client.POST('/api/v1/accounts', { body: { name: 'Auto Key Co' } });
    expect(created.response.status).toBe(201);
    await client.GET('/api/v1/accounts/{id}', { params: { path: { id: created.data?.data.id ?? '' } } });
    const [post, get] = sent;
    expect(post?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(get?.headers.get('idempotency-key')).toBeNull();
    expect(get?.headers.get('authorization')).toBe(`Bearer ${tenant.keys.commerce}`);

    const args = {
      body: { name: 'Explicit Key Co' },
      params: { header: { 'idempotency-key': 'client-explicit-1' } },
    };
    const first = await client.POST('/api/v1/accounts', args);
    const second = await client.POST('/api/v1/accounts', args);
    expect(second.response.headers.get('x-idempotency-replayed')).toBe('true');
    expect(second.data?.data.id).toBe(first.data?.data.id);
  });

  it('follows nextActions by rel, through the same auth and idempotency', async () => {
    const client = createCommerceClient({ baseUrl, apiKey: tenant.keys.commerce });
    const session = await client.POST('/api/v1/payments', {
      body: { accountId: 'acct_client', amountCents: 1200, currency: 'USD' },
    });
    expect(session.response.status).toBe(201);
    const completed = await client.followNextAction<{ data: { id: string; status: string } }>(
      session,
      'complete',
    );
    expect(completed.response.status).toBe(200);
    expect(completed.data?.data).toMatchObject({ id: session.data?.data.id, status: 'success' });
    const self = await client.followNextAction<{ data: { status: string } }>(session, 'self');
    expect(self.data?.data.status).toBe('success');
    await expect(client.followNextAction(session, 'noSuchRel')).rejects.toThrow('no nextAction "noSuchRel"');
    // Completing again is refused by the route, and the error body comes back as `error`.
    const again = await client.followNextAction(session, 'complete');
    expect(again.response.status).toBe(400);
    expect(again.error).toMatchObject({ code: 'session_terminal' });
  });

  it('retries a 429 after its Retry-After, then succeeds', async () => {
    const limited = await createTestTenant(t.deps, { rateTier: 'standard' });
    const waits: number[] = [];
    const client = createCommerceClient({
      baseUrl,
      apiKey: limited.keys.read,
      // The server's clock is a ManualClock: waiting is advancing it.
      sleep: async (ms) => {
        waits.push(ms);
        clock.advance(ms);
      },
    });
    for (let i = 0; i < 60; i++) {
      const res = await client.GET('/api/v1/catalog');
      expect(res.response.status).toBe(200);
    }
    const res = await client.GET('/api/v1/catalog');
    expect(res.response.status).toBe(200);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(60_000);

    const noRetry = createCommerceClient({ baseUrl, apiKey: limited.keys.read, maxRetries: 0 });
    for (let i = 0; i < 60; i++) await noRetry.GET('/api/v1/catalog');
    const refused = await noRetry.GET('/api/v1/catalog');
    expect(refused.response.status).toBe(429);
    expect(refused.error).toMatchObject({ code: 'rate_limited' });
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3')).toBe(3000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    const now = Date.parse('2026-03-01T10:00:00Z');
    expect(retryAfterMs('Sun, 01 Mar 2026 10:00:05 GMT', now)).toBe(5000);
  });
});
