import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  backoffMs,
  ConnectionError,
  createCommerceClient,
  RateLimitError,
  ServerError,
  TimeoutError,
} from '../../packages/client/src/index.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { type Fault, startFaultProxy } from './fault-proxy.js';
import { listen } from './listen.js';

/** The error a call rejects with (fails the test when it resolves). */
async function rejection(call: PromiseLike<unknown>): Promise<unknown> {
  return call.then(
    () => expect.unreachable('the call succeeded'),
    (err: unknown) => err,
  );
}

describe('typed client: retries, backoff, timeouts and network errors', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let target: string;
  let proxy: Awaited<ReturnType<typeof startFaultProxy>> | undefined;
  const waits: number[] = [];

  /** A client through a fault proxy in front of our server; waiting is recorded, not slept. */
  async function clientThrough(faults: Fault[], options: { maxRetries?: number; timeout?: number } = {}) {
    proxy = await startFaultProxy(target, faults);
    waits.length = 0;
    const client = createCommerceClient({
      baseUrl: proxy.url,
      apiKey: tenant.keys.commerce,
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0.5,
      ...options,
    });
    return { client, requests: proxy.requests };
  }

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    target = await listen(t);
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(() => t.app.close());

  it('retries a write through 503, 502 and a dropped connection with one Idempotency-Key', async () => {
    const { client, requests } = await clientThrough([
      { status: 503, headers: { 'retry-after': '2' }, body: 'overloaded' },
      { status: 502, headers: { 'content-type': 'text/html' }, body: '<h1>Bad Gateway</h1>' },
      'reset',
    ]);
    const account = await client.accounts.create({ name: 'Retried Co' });
    expect(account.data.name).toBe('Retried Co');
    expect(requests).toHaveLength(4);
    const keys = new Set(requests.map((r) => r.idempotencyKey));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    // Retry-After 2 s, then backoff with jitter 0.5: 3/4 of 1 s and of 2 s.
    expect(waits).toEqual([2000, 750, 1500]);
  });

  it('a write that ran but whose answer was lost is retried and replayed, not run twice', async () => {
    const { client, requests } = await clientThrough(['proxy-then-reset']);
    const account = await client.accounts.create({ name: 'Lost Answer Co' });
    expect(requests).toHaveLength(2);
    expect(requests[0]?.idempotencyKey).toBe(requests[1]?.idempotencyKey);
    const direct = createCommerceClient({ baseUrl: target, apiKey: tenant.keys.commerce });
    const named = (await direct.accounts.list().toArray()).filter((a) => a.name === 'Lost Answer Co');
    expect(named.map((a) => a.id)).toEqual([account.data.id]);
  });

  it('gives up after maxRetries (client-level or per call) with the last answer as an error', async () => {
    const overloaded: Fault = { status: 503, body: '' };
    const { client, requests } = await clientThrough(Array(10).fill(overloaded), { maxRetries: 2 });
    const err = await rejection(client.accounts.list());
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status: 503, code: 'http_503' });
    expect(requests).toHaveLength(3);
    expect(waits).toEqual([375, 750]);

    requests.length = 0;
    expect(await rejection(client.accounts.list(undefined, { maxRetries: 0 }))).toBeInstanceOf(ServerError);
    expect(requests).toHaveLength(1);
  });

  it('does not retry a 500 or a 4xx', async () => {
    const { client, requests } = await clientThrough([{ status: 500, body: 'boom' }]);
    const err = await rejection(client.accounts.list());
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).message).toBe('HTTP 500: boom');
    const invalid = await rejection(client.carts.create({ currency: 'usd' }));
    expect((invalid as ApiError).status).toBe(400);
    expect(requests).toHaveLength(2);
    expect(waits).toEqual([]);
  });

  it('does not wait longer than maxRetryDelayMs: a far Retry-After ends in RateLimitError', async () => {
    const { client, requests } = await clientThrough([
      { status: 429, headers: { 'retry-after': '3600' }, body: '' },
    ]);
    const err = await rejection(client.accounts.list());
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, retryAfterSeconds: 3600 });
    expect(requests).toHaveLength(1);
  });

  it('turns a timeout into TimeoutError, retried like a network error', async () => {
    const { client, requests } = await clientThrough(['hang'], { timeout: 300 });
    const listed = await client.accounts.list();
    expect(Array.isArray(listed.data)).toBe(true);
    expect(requests).toHaveLength(2);

    const once = await clientThrough(['hang'], { timeout: 300, maxRetries: 0 });
    const err = await rejection(once.client.accounts.list());
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toMatchObject({ code: 'timeout', status: undefined });
  });

  it('takes timeout per call, and a caller’s abort ends the call without retrying', async () => {
    const { client, requests } = await clientThrough(['hang', 'hang']);
    const err = await rejection(client.accounts.list(undefined, { timeout: 300, maxRetries: 0 }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(requests).toHaveLength(1);

    const controller = new AbortController();
    const call = rejection(client.accounts.list(undefined, { signal: controller.signal }));
    await expect.poll(() => requests.length).toBe(2);
    controller.abort(new Error('the caller gave up'));
    expect(((await call) as Error).message).toBe('the caller gave up');
    expect(requests).toHaveLength(2);
    expect(waits).toEqual([]);
  });

  it('turns a refused connection into ConnectionError (not a bare TypeError), for path calls too', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    waits.length = 0;
    const client = createCommerceClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: tenant.keys.commerce,
      maxRetries: 2,
      random: () => 0,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const err = await rejection(client.accounts.list());
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'connection_error', status: undefined });
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect(waits).toEqual([250, 500]);
    await expect(client.GET('/api/v1/accounts')).rejects.toBeInstanceOf(ConnectionError);
  });

  it('backs off exponentially from 500 ms to a cap of 8 s, jittered over the upper half', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((n) => backoffMs(n, () => 0))).toEqual([
      250, 500, 1000, 2000, 4000, 4000, 4000,
    ]);
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffMs(n, () => 0.999999))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
  });
});
