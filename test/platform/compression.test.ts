import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost } from '../support/catalog-fixtures.js';

// Responses are compressed as the client's Accept-Encoding asks (brotli or gzip), and a
// compressed answer decodes to exactly the body sent without compression: the OpenAPI document,
// a JSON list streamed from the database (GET /orders), the JSON Lines feed.

const decode = (encoding: string | undefined, raw: Buffer) =>
  encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'gzip' ? gunzipSync(raw) : raw;

describe('response compression', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  const fetchBoth = async (url: string, key: string | null, encoding: string) => {
    const headers = key ? bearer(key) : {};
    const plain = await t.app.inject({ method: 'GET', url, headers });
    const packed = await t.app.inject({
      method: 'GET',
      url,
      headers: { ...headers, 'accept-encoding': encoding },
    });
    return { plain, packed };
  };

  it('sends the OpenAPI document in brotli or gzip, decoding to the same document, and plain without Accept-Encoding', async () => {
    for (const encoding of ['br', 'gzip']) {
      const { plain, packed } = await fetchBoth('/api/v1/openapi.json', null, encoding);
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(packed.statusCode).toBe(200);
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(packed.headers.vary).toMatch(/accept-encoding/i);
      expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length / 5);
      expect(decode(encoding, packed.rawPayload).toString()).toBe(plain.body);
    }
    // Brotli is preferred when both are accepted.
    const both = await t.app.inject({
      method: 'GET',
      url: '/api/v1/openapi.json',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(both.headers['content-encoding']).toBe('br');
  });

  it('compresses a list streamed as it is read (GET /orders) to the same JSON', async () => {
    const shop = api(t, tenant.keys.commerce);
    for (let i = 0; i < 40; i++) {
      const created = await shop.post('/orders', { totalCents: 1000 + i });
      expect(created.statusCode, created.body).toBe(201);
    }
    for (const encoding of ['gzip', 'br']) {
      const { plain, packed } = await fetchBoth('/api/v1/orders', tenant.keys.read, encoding);
      expect(plain.statusCode).toBe(200);
      expect(plain.json().data).toHaveLength(40);
      expect(packed.headers['content-encoding']).toBe(encoding);
      expect(JSON.parse(decode(encoding, packed.rawPayload).toString())).toEqual(plain.json());
    }
  });

  it('compresses the JSON Lines product feed to the same lines', async () => {
    for (const name of ['Mug', 'Tee', 'Cap']) {
      await adminPost(t, tenant, 'products', {
        name,
        type: 'one_time',
        currency: 'USD',
        charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 1800 }] }],
      });
    }
    const { plain, packed } = await fetchBoth('/api/v1/admin/feeds/acp', tenant.keys.admin, 'gzip');
    expect(plain.statusCode, plain.body).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(plain.body.trimEnd().split('\n')).toHaveLength(3);
    expect(packed.headers['content-encoding']).toBe('gzip');
    expect(decode('gzip', packed.rawPayload).toString()).toBe(plain.body);
  });

  it('leaves small answers and errors under the threshold as they are', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/manifest',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json().code).toBe('unauthorized');
  });

  it('does not take compressed request bodies (the API reads plain JSON)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/accounts',
      headers: {
        ...bearer(tenant.keys.commerce),
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      payload: gzipSync(Buffer.from(JSON.stringify({ name: 'Compressed' }))),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
  });
});
