import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/limits.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';

// Issue 27, item 10: deeply nested JSON with an Idempotency-Key was a 500. The request hash
// canonicalises the body recursively before the handler and overflowed the stack on `[` x100k:
// every write route without a body schema, and the free-JSON policy `condition`. The body guard
// refuses nesting beyond MAX_JSON_DEPTH with 400 (`rule: maxDepth`) before anything reads it.

const nested = (levels: number, inner = '0') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

describe('JSON nesting is bounded before the request hash', () => {
  let t: TestApp;
  let tenant: TestTenant;

  const post = (url: string, raw: string, key = tenant.keys.commerce) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1${url}`,
      headers: { ...bearer(key), 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      payload: raw,
    });
  const policies = async () =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/admin/policies',
        headers: bearer(tenant.keys.admin),
      })
    ).json().data as unknown[];

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  it('a write route without a body schema answers 400 maxDepth to [ x100,000 with an Idempotency-Key', async () => {
    const res = await post(`/subscriptions/${randomUUID()}/renew`, nested(100_000));
    expect(res.statusCode, res.body).toBe(400);
    expect(errorBody(res)).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'body', rule: 'maxDepth' }],
    });
    expect(errorBody(res).error).toContain(String(MAX_JSON_DEPTH));
  });

  it('the limit is MAX_JSON_DEPTH levels, the body itself the first', async () => {
    const at = await post(`/subscriptions/${randomUUID()}/renew`, nested(MAX_JSON_DEPTH));
    // Within the limit the request goes on to the operation (no such subscription).
    expect(at.statusCode, at.body).toBe(404);
    const over = await post(`/subscriptions/${randomUUID()}/renew`, nested(MAX_JSON_DEPTH + 1));
    expect(over.statusCode).toBe(400);
    expect(errorBody(over)).toMatchObject({ details: [{ field: 'body', rule: 'maxDepth' }] });
  });

  it('a policy condition nested 100,000 deep is 400 naming condition, and no policy is created', async () => {
    const before = (await policies()).length;
    const deep = `{"name":"deep","effect":"block","appliesTo":["order.create"],"condition":${nested(100_000, '{"var":"totalCents"}')}}`;
    const res = await post('/admin/policies', deep, tenant.keys.admin);
    expect(res.statusCode, res.body).toBe(400);
    expect(errorBody(res)).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'condition', rule: 'maxDepth' }],
    });
    expect(await policies()).toHaveLength(before);
  });
});
