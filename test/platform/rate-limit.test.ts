import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { PROVIDER_CALLBACKS_PER_WINDOW } from '../../src/http/limits.js';
import { RedisRateLimiter } from '../../src/http/rate-limit/redis-limiter.js';
import { issueApiKey } from '../../src/modules/api-keys/index.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp } from '../harness.js';

const WINDOW_MS = 60_000;
// A fixed, whole-second start keeps X-RateLimit-Reset arithmetic exact.
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

async function standardKey(t: TestApp, tier: 'standard' | 'premium' = 'standard') {
  const tenant = await createTestTenant(t.deps);
  const { secret } = await issueApiKey(t.deps.db, tenant.tenantId, {
    name: 'limited',
    scopes: ['read'],
    rateTier: tier,
    environment: 'sandbox',
  });
  return secret;
}

const headersOf = (res: { headers: Record<string, unknown> }) => ({
  limit: Number(res.headers['x-ratelimit-limit']),
  remaining: Number(res.headers['x-ratelimit-remaining']),
  reset: Number(res.headers['x-ratelimit-reset']),
});

describe('rolling-window rate limits (in-process)', () => {
  let t: TestApp;
  const clock = new ManualClock(new Date(T0));

  beforeAll(async () => {
    t = await startApp({ clock, config: { redisUrl: undefined } });
  });
  afterAll(() => t.app.close());

  const get = (key: string) => t.app.inject({ method: 'GET', url: '/api/v1/manifest', headers: bearer(key) });

  it('allows 60 per rolling minute on a standard key, counting down, then 429 with Retry-After', async () => {
    clock.set(new Date(T0));
    const key = await standardKey(t);
    for (let i = 1; i <= 60; i++) {
      const res = await get(key);
      expect(res.statusCode).toBe(200);
      expect(headersOf(res)).toEqual({ limit: 60, remaining: 60 - i, reset: (T0 + WINDOW_MS) / 1000 });
      clock.advance(100);
    }
    const refused = await get(key);
    expect(refused.statusCode).toBe(429);
    expect(headersOf(refused)).toEqual({ limit: 60, remaining: 0, reset: (T0 + WINDOW_MS) / 1000 });
    // 6 s have passed: the oldest request leaves the window in 54 s.
    expect(refused.headers['retry-after']).toBe('54');
    const body = errorBody(refused);
    expect(body.code).toBe('rate_limited');
    // The wait is in the body too, for clients (and MCP results) that do not see headers.
    expect((body as { retryAfterSeconds?: number }).retryAfterSeconds).toBe(54);
    expect(typeof body.error).toBe('string');
    expect(body.requestId).toBe(refused.headers['x-request-id']);
  });

  it('rolls: requests free up exactly as they leave the window (no fixed-bucket burst)', async () => {
    clock.set(new Date(T0 + 10 * WINDOW_MS));
    const start = clock.now().getTime();
    const key = await standardKey(t);
    for (let i = 0; i < 30; i++) expect((await get(key)).statusCode).toBe(200); // 30 at t=0
    clock.advance(30_000);
    for (let i = 0; i < 30; i++) expect((await get(key)).statusCode).toBe(200); // 30 at t=30 s
    expect((await get(key)).statusCode).toBe(429);
    clock.advance(29_999); // t = 59.999 s: nothing has left yet, even though a "new minute" began
    expect((await get(key)).statusCode).toBe(429);
    clock.advance(2); // t = 60.001 s: the first 30 left
    let allowed = 0;
    for (let i = 0; i < 40; i++) if ((await get(key)).statusCode === 200) allowed++;
    expect(allowed).toBe(30);
    const last = await get(key);
    expect(headersOf(last).reset).toBe(Math.ceil((start + 30_000 + WINDOW_MS) / 1000));
  });

  it('uses the key’s tier', async () => {
    clock.set(new Date(T0 + 20 * WINDOW_MS));
    const key = await standardKey(t, 'premium');
    const res = await get(key);
    expect(headersOf(res)).toMatchObject({ limit: 300, remaining: 299 });
  });

  it('limits keys independently', async () => {
    clock.set(new Date(T0 + 30 * WINDOW_MS));
    const a = await standardKey(t);
    const b = await standardKey(t);
    for (let i = 0; i < 60; i++) await get(a);
    expect((await get(a)).statusCode).toBe(429);
    expect((await get(b)).statusCode).toBe(200);
  });

  it('limits unauthenticated discovery and failed authentication per client IP', async () => {
    clock.set(new Date(T0 + 40 * WINDOW_MS));
    const fromIp = (remoteAddress: string, url: string, headers = {}) =>
      t.app.inject({ method: 'GET', url, remoteAddress, headers });
    for (let i = 0; i < 59; i++)
      expect((await fromIp('198.51.100.7', '/api/v1/openapi.json')).statusCode).toBe(200);
    const unauth = await fromIp('198.51.100.7', '/api/v1/manifest');
    expect(unauth.statusCode).toBe(401); // 60th request of this IP, counted too
    expect(headersOf(unauth)).toMatchObject({ limit: 60, remaining: 0 });
    const limited = await fromIp('198.51.100.7', '/.well-known/agent-tools.json');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toEqual(expect.any(String));
    expect((await fromIp('198.51.100.8', '/api/v1/openapi.json')).statusCode).toBe(200);
  });

  it('gives the payment provider callback a bucket of its own per address, well above the standard tier', async () => {
    clock.set(new Date(T0 + 45 * WINDOW_MS));
    const ip = '198.51.100.9';
    const callback = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/provider-events/sandbox/unknown-endpoint',
        remoteAddress: ip,
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
    // 80 callbacks from one address: more than the 60 of a client without a key, all answered.
    for (let i = 0; i < 80; i++) {
      const res = await callback();
      expect(res.statusCode).toBe(404);
      expect(headersOf(res)).toMatchObject({
        limit: PROVIDER_CALLBACKS_PER_WINDOW,
        remaining: PROVIDER_CALLBACKS_PER_WINDOW - 1 - i,
      });
    }
    // The address's standard bucket for the other routes without a key is untouched.
    const discovery = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json', remoteAddress: ip });
    expect(headersOf(discovery)).toMatchObject({ limit: 60, remaining: 59 });
  });

  it('carries the headers on errors too, but not on health probes', async () => {
    clock.set(new Date(T0 + 50 * WINDOW_MS));
    const tenant = await createTestTenant(t.deps);
    const forbidden = await t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/api-keys',
      headers: bearer(tenant.keys.read),
    });
    expect(forbidden.statusCode).toBe(403);
    expect(headersOf(forbidden).limit).toBe(10_000);
    const notFound = await t.app.inject({ method: 'GET', url: '/api/v1/nope', remoteAddress: '203.0.113.9' });
    expect(notFound.statusCode).toBe(404);
    expect(headersOf(notFound).limit).toBe(60);
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('Redis unreachable', () => {
  it('fails open to the in-process limiter and reports degraded on /readyz', async () => {
    const t = await startApp({ config: { redisUrl: 'redis://127.0.0.1:1' } });
    try {
      const tenant = await createTestTenant(t.deps);
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/manifest',
        headers: bearer(tenant.keys.read),
      });
      expect(res.statusCode).toBe(200);
      expect(headersOf(res)).toMatchObject({ limit: 10_000, remaining: 9_999 });
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({
        status: 'degraded',
        checks: { database: 'ok', rateLimiter: 'degraded' },
      });
    } finally {
      await t.app.close();
    }
  });
});

describe.runIf(process.env.REDIS_URL)('rate limits shared through Redis', () => {
  it('two instances together allow exactly 60 for one standard key', async () => {
    const redisUrl = process.env.REDIS_URL as string;
    const prefix = `cak:test:${randomUUID()}:`;
    const shared = () => new RedisRateLimiter(redisUrl, pino({ level: 'silent' }), prefix);
    const a = await startApp({ rateLimiter: shared() });
    const b = await startApp({ rateLimiter: shared() });
    try {
      await Promise.all([a.deps.rateLimiter.ready(2_000), b.deps.rateLimiter.ready(2_000)]);
      expect(a.deps.rateLimiter).toBeInstanceOf(RedisRateLimiter);
      const key = await standardKey(a);
      const requests = Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? a : b).app.inject({ method: 'GET', url: '/api/v1/manifest', headers: bearer(key) }),
      );
      const statuses = (await Promise.all(requests)).map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 200)).toHaveLength(60);
      expect(statuses.filter((s) => s === 429)).toHaveLength(40);
      const ready = await a.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.json().checks.rateLimiter).toBe('ok');
    } finally {
      await Promise.all([a.app.close(), b.app.close()]);
    }
  });
});
