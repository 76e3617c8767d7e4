import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/client.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';

const ERROR_KEYS = ['code', 'error', 'requestId'];

let t: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  t = await startApp({
    config: { bodyLimitBytes: 2048 },
    extraRoutes: (app) => {
      app.get('/test/boom', { config: { public: false } }, async () => {
        throw new Error('secret internal detail');
      });
    },
  });
  tenant = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

const createKey = (payload: string | object, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/admin/api-keys',
    headers: { ...bearer(tenant.keys.admin), 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('error bodies: 400', () => {
  it('400 validation_failed names each field and rule', async () => {
    const res = await createKey({ name: 'x'.repeat(101), scopes: ['root'], extra: true });
    expect(res.statusCode).toBe(400);
    const body = errorBody(res);
    expect(Object.keys(body).sort()).toEqual([...ERROR_KEYS, 'details'].sort());
    expect(body.code).toBe('validation_failed');
    expect(body.details).toMatchObject(
      expect.arrayContaining([
        {
          field: 'name',
          rule: 'maxLength',
          argument: 'name',
          message: 'name must NOT have more than 100 characters',
        },
        {
          field: 'scopes.0',
          rule: 'enum',
          argument: 'scopes.0',
          message: 'scopes.0 must be one of: read, commerce, admin',
        },
        {
          field: 'extra',
          rule: 'additionalProperties',
          argument: 'extra',
          message: 'extra is not a known field',
        },
      ]),
    );
    expect(body.details).toHaveLength(3);
  });

  it('400 names a missing required field', async () => {
    const res = await createKey({ name: 'k' });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details).toMatchObject([
      { field: 'scopes', rule: 'required', message: 'scopes is required' },
    ]);
  });

  it('400 does not coerce body types: a string is not an array', async () => {
    const res = await createKey({ name: 'k', scopes: 'read' });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details?.[0]).toMatchObject({ field: 'scopes', rule: 'type' });
  });

  it('400 for malformed JSON', async () => {
    const res = await createKey('{"name": ');
    expect(res.statusCode).toBe(400);
    expect(errorBody(res)).toMatchObject({
      code: 'validation_failed',
      error: 'Request body is not valid JSON',
      details: [{ field: 'body', rule: 'json' }],
    });
  });

  it('an empty body with Content-Type: application/json is no body: 400 naming it where one is required', async () => {
    const res = await createKey('');
    expect(res.statusCode).toBe(400);
    expect(errorBody(res)).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'body', rule: 'type' }],
    });
    // A POST that takes no body is served (here an unknown key: 404, not a JSON error).
    const noBody = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/01900000-0000-7000-8000-000000000001/test',
      headers: { ...bearer(tenant.keys.commerce), 'content-type': 'application/json' },
      payload: '',
    });
    expect(noBody.statusCode).toBe(404);
    // Prototype poisoning is still refused.
    const poisoned = await createKey('{"name":"k","scopes":["read"],"__proto__":{"x":1}}');
    expect(poisoned.statusCode).toBe(400);
  });

  it('400 for an invalid path parameter, prefixed path.', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/api-keys/not-a-uuid',
      headers: bearer(tenant.keys.admin),
    });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details?.[0]).toMatchObject({ field: 'path.id', rule: 'format' });
  });

  it('400 in our error body for a path parameter the router refuses (over 1000 characters)', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/api-keys/${'x'.repeat(1001)}`,
      headers: bearer(tenant.keys.admin),
    });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res)).toMatchObject({
      code: 'validation_failed',
      requestId: res.headers['x-request-id'],
    });
  });

  // Found by the fuzz suite (test/reliability/fuzz.test.ts): PostgreSQL text cannot hold U+0000,
  // so a NUL in a query parameter or the Idempotency-Key used to fail the statement with 500.
  it('400 validation_failed for U+0000 in a query parameter, the body or the Idempotency-Key', async () => {
    const inQuery = await t.app.inject({
      method: 'GET',
      url: '/api/v1/subscriptions?accountId=%00',
      headers: bearer(tenant.keys.read),
    });
    expect(inQuery.statusCode).toBe(400);
    expect(errorBody(inQuery).details?.[0]).toMatchObject({ field: 'query.accountId', rule: 'characters' });
    const inBody = await createKey({ name: 'a\u0000b', scopes: ['read'] });
    expect(inBody.statusCode).toBe(400);
    expect(errorBody(inBody).details?.[0]).toMatchObject({ field: 'name', rule: 'characters' });
    const inHeader = await createKey({ name: 'ok', scopes: ['read'] }, { 'idempotency-key': '\u0000' });
    expect(inHeader.statusCode).toBe(400);
    expect(errorBody(inHeader).details?.[0]).toMatchObject({ field: 'header.idempotency-key' });
  });

  // Found by the fuzz suite: a lone surrogate in a JSON body sent with an Idempotency-Key made the
  // RFC 8785 request hash throw (500).
  it('400 validation_failed for a lone surrogate in a JSON body sent with an Idempotency-Key', async () => {
    const res = await createKey('{"name":"a\\ud800","scopes":["read"]}', {
      'idempotency-key': 'k-surrogate',
    });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details?.[0]).toMatchObject({ field: 'name', rule: 'characters' });
    // The message says what it is (it once spoke of NUL).
    expect(errorBody(res).error).toMatch(/lone UTF-16 surrogate/);
    expect(errorBody(res).error).not.toMatch(/NUL/);
    const whole = await createKey('"\\ud800"', { 'idempotency-key': 'k-surrogate-2' });
    expect(whole.statusCode).toBe(400);
    expect(errorBody(whole).details?.[0]).toMatchObject({ field: 'body', rule: 'characters' });
  });

  // Found by the adversarial run: Node answered an oversized header block itself, in its own body.
  it('431 with our error body for a header block over the limit', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(`${address}/api/v1/manifest`, { headers: { 'x-big': 'a'.repeat(60_000) } });
    expect(res.status).toBe(431);
    const body = (await res.json()) as { error: string; code: string; requestId: string };
    expect(Object.keys(body).sort()).toEqual(['code', 'error', 'requestId']);
    expect(body.code).toBe('headers_too_large');
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('error bodies: MCP arguments, 404, 415, 413, 500 and request ids', () => {
  it('each detail also names the MCP tool argument the value came from', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/api-keys',
      headers: { ...bearer(tenant.keys.admin), 'idempotency-key': 'x'.repeat(300) },
      payload: { name: 'k', scopes: ['read'] },
    });
    expect(errorBody(res).details?.[0]).toMatchObject({
      field: 'header.idempotency-key',
      argument: 'idempotencyKey',
    });
    const path = await t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/api-keys/not-a-uuid',
      headers: bearer(tenant.keys.admin),
    });
    expect(errorBody(path).details?.[0]).toMatchObject({ field: 'path.id', argument: 'id' });
    const query = await t.app.inject({
      method: 'GET',
      url: '/api/v1/audit-logs?limit=0',
      headers: bearer(tenant.keys.admin),
    });
    expect(errorBody(query).details?.[0]).toMatchObject({ field: 'query.limit', argument: 'limit' });
    const body = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/api-keys',
      headers: bearer(tenant.keys.admin),
      payload: { name: '', scopes: ['read'] },
    });
    expect(errorBody(body).details?.[0]).toMatchObject({ field: 'name', argument: 'name' });
  });

  it('404 not_found for an unknown route', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    expect(res.statusCode).toBe(404);
    const body = errorBody(res);
    expect(Object.keys(body).sort()).toEqual(ERROR_KEYS.sort());
    expect(body).toMatchObject({ code: 'not_found', error: 'No route for GET /api/v1/nothing-here' });
  });

  it('404 for a resource of another tenant, never 403', async () => {
    const other = await createTestTenant(t.deps);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/api-keys/${other.keyIds.read}`,
      headers: bearer(tenant.keys.admin),
    });
    expect(res.statusCode).toBe(404);
    expect(errorBody(res)).toMatchObject({ code: 'not_found', error: 'API key not found' });
  });

  it('415 unsupported_media_type for a non-JSON body', async () => {
    const res = await createKey('name=x', { 'content-type': 'text/plain' });
    expect(res.statusCode).toBe(415);
    expect(errorBody(res).code).toBe('unsupported_media_type');
    const form = await createKey('name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.statusCode).toBe(415);
  });

  it('413 payload_too_large over the body limit', async () => {
    const res = await createKey({ name: 'x'.repeat(4096), scopes: ['read'] });
    expect(res.statusCode).toBe(413);
    expect(errorBody(res)).toMatchObject({ code: 'payload_too_large' });
  });

  it('500 internal hides the cause', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test/boom' });
    expect(res.statusCode).toBe(500);
    expect(errorBody(res)).toMatchObject({ code: 'internal', error: 'Internal server error' });
    expect(res.body).not.toContain('secret internal detail');
    expect(res.body).not.toContain('at ');
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const echoed = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'req-123.abc' },
    });
    expect(echoed.headers['x-request-id']).toBe('req-123.abc');
    const replaced = await t.app.inject({
      method: 'GET',
      url: '/api/v1/manifest',
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(errorBody(replaced).requestId).toBe(replaced.headers['x-request-id']);
    const generated = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('database unreachable', () => {
  it('answers 503 service_unavailable with Retry-After, and /readyz 503, without hanging', async () => {
    // Nothing listens on port 1: every connection is refused.
    const database = openPostgres({ url: 'postgres://nobody@127.0.0.1:1/none' });
    const t = await startApp({ database });
    try {
      const started = Date.now();
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/manifest',
        headers: bearer(`cak_test_${'B'.repeat(32)}`),
      });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(errorBody(res)).toMatchObject({ code: 'service_unavailable' });
      expect(Date.now() - started).toBeLessThan(5_000);
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({
        status: 'unavailable',
        checks: { database: 'unreachable', rateLimiter: 'ok' },
      });
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t.app.close();
      await database.close();
    }
  });
});
