import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.js';
import { createDeps } from '../../src/deps.js';
import { MemoryRateLimiter } from '../../src/http/rate-limit/memory-limiter.js';
import { bearer, createTestTenant, type TestTenant, testConfig, testDatabase } from '../harness.js';

// The server's own log, captured: pino writing JSON lines to a stream of the test's.

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  [field: string]: unknown;
}

const lines: LogLine[] = [];
let app: App;
let tenant: TestTenant;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n')) if (text) lines.push(JSON.parse(text));
      done();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  const deps = createDeps(testConfig(), await testDatabase(), logger, {
    rateLimiter: new MemoryRateLimiter(),
  });
  app = await buildApp(deps);
  tenant = await createTestTenant(deps);
});
afterAll(() => app.close());

/** The lines the request with this id logged. */
const linesOf = (requestId: string) => lines.filter((l) => l.reqId === requestId);

async function send(url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  return { res, logged: linesOf(String(res.headers['x-request-id'])) };
}

describe('request log lines', () => {
  it('logs one line per request with tenant, key prefix, route, operationId and error code', async () => {
    const ok = await send('/api/v1/orders', bearer(tenant.keys.read));
    expect(ok.res.statusCode).toBe(200);
    expect(ok.logged).toHaveLength(1);
    expect(ok.logged[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      tenant: tenant.tenantId,
      keyPrefix: tenant.keys.read.slice(0, 13),
      route: '/api/v1/orders',
      operationId: 'listOrders',
      errorCode: null,
      statusCode: 200,
      method: 'GET',
      path: '/api/v1/orders',
    });
    expect(ok.logged[0]?.responseTime).toEqual(expect.any(Number));
    // The key itself is never written.
    expect(JSON.stringify(lines)).not.toContain(tenant.keys.read);

    const missing = await send(
      '/api/v1/orders/00000000-0000-4000-8000-000000000000',
      bearer(tenant.keys.read),
    );
    expect(missing.res.statusCode).toBe(404);
    expect(missing.logged).toHaveLength(1);
    expect(missing.logged[0]).toMatchObject({
      tenant: tenant.tenantId,
      keyPrefix: tenant.keys.read.slice(0, 13),
      route: '/api/v1/orders/:id',
      operationId: 'getOrder',
      errorCode: 'not_found',
      statusCode: 404,
    });
  });

  it('names no tenant for a request without a valid key, and the prefix of the key it sent', async () => {
    const unknownKey = `cak_test_${'Z'.repeat(32)}`;
    const refused = await send('/api/v1/orders', bearer(unknownKey));
    expect(refused.res.statusCode).toBe(401);
    expect(refused.logged).toHaveLength(1);
    expect(refused.logged[0]).toMatchObject({
      level: 30,
      tenant: null,
      keyPrefix: 'cak_test_ZZZZ',
      route: '/api/v1/orders',
      operationId: 'listOrders',
      errorCode: 'unauthorized',
      statusCode: 401,
    });

    const nowhere = await send('/no/such/route');
    expect(nowhere.res.statusCode).toBe(404);
    expect(nowhere.logged).toEqual([
      expect.objectContaining({
        tenant: null,
        keyPrefix: null,
        route: null,
        operationId: null,
        errorCode: 'not_found',
      }),
    ]);
  });

  it('logs health probes at debug, so an info-level log has none of them', async () => {
    for (const url of ['/healthz', '/readyz']) {
      const probe = await send(url);
      expect(probe.res.statusCode).toBe(200);
      expect(probe.logged).toEqual([
        expect.objectContaining({ level: 20, msg: 'request completed', route: url, statusCode: 200 }),
      ]);
    }
  });
});
