import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPE_NAMES } from '../../src/events/event-types.js';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';

/** SPEC.md's event types and ours (refunds, credits, entitlements, orders that know they are paid). */
const SPEC_EVENT_TYPES = [
  'account.created',
  'account.updated',
  'subscription.created',
  'subscription.changed',
  'subscription.cancelled',
  'subscription.renewed',
  'order.created',
  'order.updated',
  'order.paid',
  'order.refunded',
  'payment.session_created',
  'payment.succeeded',
  'payment.failed',
  'payment.reversed',
  'product.stock_low',
  'product.out_of_stock',
  'product.restocked',
  'invoice.created',
  'invoice.paid',
  'invoice.failed',
  'invoice.reopened',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
  'credit.granted',
  'credit.applied',
  'credit.expired',
  'entitlements.changed',
  'webhook.test',
];

describe('manifest and capabilities', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps, { name: 'Discovery Co' });
  });
  afterAll(() => t.app.close());

  it('manifest describes the tenant, key and every event type, cacheable per key', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/manifest',
      headers: bearer(tenant.keys.commerce),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=60');
    expect(res.headers.vary).toBe('Authorization');
    const { data } = res.json();
    expect(data.tenant).toEqual({ id: tenant.tenantId, name: 'Discovery Co' });
    expect(data.environment).toBe('sandbox');
    expect(data.key).toEqual({
      id: tenant.keyIds.commerce,
      scopes: ['read', 'commerce'],
      rateTier: 'unlimited',
    });
    expect([...data.capabilities.eventTypes].sort()).toEqual([...SPEC_EVENT_TYPES].sort());
    expect(data.capabilities.eventTypes).toEqual(EVENT_TYPE_NAMES);
    // No billing integration: no billing capability.
    expect(data.capabilities.billing).toEqual({ adapter: null, capabilities: [] });
    await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/billing-integration',
      headers: bearer(tenant.keys.admin),
      payload: { adapter: 'builtin' },
    });
    const linked = await t.app.inject({
      method: 'GET',
      url: '/api/v1/manifest',
      headers: bearer(tenant.keys.read),
    });
    expect(linked.json().data.capabilities.billing).toEqual({
      adapter: 'builtin',
      capabilities: ['refunds', 'credits', 'passthroughQuotes'],
    });
  });

  it('capabilities lists every public operation with the key’s permission', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/capabilities',
      headers: bearer(tenant.keys.read),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=60');
    const { data } = res.json();
    expect(data.operations).toHaveLength(t.app.registry.publicOperations.length);
    const byId = Object.fromEntries(
      data.operations.map((op: { operationId: string }) => [op.operationId, op]),
    );
    expect(byId.getManifest).toMatchObject({
      method: 'GET',
      path: '/api/v1/manifest',
      requiredScope: 'read',
      allowed: true,
    });
    expect(byId.createApiKey).toMatchObject({ requiredScope: 'admin', allowed: false });
    expect(byId.getOpenApiDocument).toMatchObject({ requiredScope: null, allowed: true });
    expect(Object.keys(data.eventTypeDescriptions).sort()).toEqual([...SPEC_EVENT_TYPES].sort());
    expect(data.limits).toMatchObject({
      rateLimitWindowSeconds: 60,
      rateLimitTiers: { standard: 60, premium: 300, unlimited: 10000 },
      idempotencyKeyMaxLength: 255,
      maxRequestBodyBytes: 1048576,
    });
  });

  it('nextActions carry requiredScope and allowed for the caller', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/manifest',
      headers: bearer(tenant.keys.read),
    });
    expect(res.json().nextActions).toMatchObject([
      { rel: 'manifest', method: 'GET', href: '/api/v1/manifest', requiredScope: 'read', allowed: true },
      {
        rel: 'capabilities',
        method: 'GET',
        href: '/api/v1/capabilities',
        requiredScope: 'read',
        allowed: true,
      },
      { rel: 'openapi', method: 'GET', href: '/api/v1/openapi.json', requiredScope: null, allowed: true },
      // Where the typical flow starts; a read key is told why it may not create.
      { rel: 'catalog', method: 'GET', href: '/api/v1/catalog', operationId: 'getCatalog', allowed: true },
      {
        rel: 'createAccount',
        operationId: 'createAccount',
        allowed: false,
        reason: 'The API key lacks the "commerce" scope.',
      },
      { rel: 'createCart', operationId: 'createCart', allowed: false },
    ]);
  });

  it('tells a client without a key how to authenticate: WWW-Authenticate, protected-resource metadata, an index', async () => {
    const base = t.deps.config.publicBaseUrl;
    const metadataUrl = `${base}/.well-known/oauth-protected-resource`;
    // An MCP host probing without a key gets a 401 that points at the metadata.
    const mcp = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcp.statusCode).toBe(401);
    expect(mcp.headers['www-authenticate']).toBe(
      `Bearer realm="commerce-agent-api", resource_metadata="${metadataUrl}"`,
    );
    // Any other 401 says the same.
    const rest = await t.app.inject({ method: 'GET', url: '/api/v1/manifest' });
    expect(rest.statusCode).toBe(401);
    expect(rest.headers['www-authenticate']).toContain('resource_metadata=');
    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.json()).toMatchObject({
      resource: base,
      authorization_servers: [],
      bearer_methods_supported: ['header'],
      scopes_supported: ['read', 'commerce', 'admin'],
      resource_documentation: `${base}/docs`,
    });
    const index = await t.app.inject({ method: 'GET', url: '/' });
    expect(index.statusCode).toBe(200);
    expect(index.json()).toMatchObject({
      api: `${base}/api/v1`,
      openapi: `${base}/api/v1/openapi.json`,
      docs: `${base}/docs`,
      mcp: `${base}/mcp`,
      oauthProtectedResource: metadataUrl,
    });
    // A 200 carries no challenge.
    expect(index.headers['www-authenticate']).toBeUndefined();
  });

  it('health and readiness need no key', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', rateLimiter: 'ok' },
      // Pending billing intents of every tenant of the (shared) test database.
      intents: {
        pending: expect.any(Number),
        oldestAgeSeconds: expect.toBeOneOf([null, expect.any(Number)]),
      },
    });
  });
});
