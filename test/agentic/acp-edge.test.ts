import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import {
  ACP_VERSION,
  type AcpCatalog,
  type AcpClient,
  acpCatalog,
  acpClient,
  address,
  delegation,
  noInterventions,
} from './acp-client.js';
import { expectAcp, expectDelegate } from './schemas/acp/index.js';

// The ACP edge: the headers the protocol requires and echoes, its flat errors with JSONPath
// params, idempotency as RFC section 6 words it, scopes and tenants, and the discovery document.

let t: TestApp;
let tenant: TestTenant;
let catalog: AcpCatalog;
let agent: AcpClient;
const clock = new ManualClock(new Date('2026-05-04T10:00:00Z'));

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
  catalog = await acpCatalog(t, tenant);
  agent = acpClient(t, tenant.keys.commerce);
});
afterAll(() => t.app.close());

const createBody = () => ({
  currency: 'usd',
  line_items: [{ id: catalog.mug.id, quantity: 1 }],
  capabilities: noInterventions,
  fulfillment_details: { name: 'Jane Doe', email: 'jane@example.com', address },
});

describe('ACP edge: required headers', () => {
  it('refuses a request without API-Version: 400 missing_api_version with supported_versions', async () => {
    for (const res of [
      await agent.create(createBody(), { version: null }),
      await agent.get('00000000-0000-7000-8000-000000000000', { version: null }),
    ]) {
      expect(res.statusCode).toBe(400);
      expectAcp('Error', res.json());
      expect(res.json()).toMatchObject({
        type: 'invalid_request',
        code: 'missing_api_version',
        supported_versions: [ACP_VERSION],
      });
    }
  });

  it('refuses an unsupported API-Version: 400 unsupported_api_version', async () => {
    const res = await agent.create(createBody(), { version: '2025-09-29' });
    expect(res.statusCode).toBe(400);
    expectAcp('Error', res.json());
    expect(res.json()).toMatchObject({ code: 'unsupported_api_version', supported_versions: [ACP_VERSION] });
  });

  it('refuses a POST without Idempotency-Key: 400 idempotency_key_required', async () => {
    const res = await agent.create(createBody(), { idempotencyKey: null });
    expect(res.statusCode).toBe(400);
    expectAcp('Error', res.json());
    expect(res.json()).toMatchObject({ type: 'invalid_request', code: 'idempotency_key_required' });
    const delegated = await agent.delegate({}, { idempotencyKey: null });
    expect(delegated.statusCode).toBe(400);
    expectDelegate('Error', delegated.json());
    expect(delegated.json().code).toBe('idempotency_key_required');
  });

  it('names a bad field with an RFC 9535 JSONPath', async () => {
    const res = await agent.create({ ...createBody(), line_items: [{ id: catalog.mug.id, quantity: -1 }] });
    expect(res.statusCode).toBe(400);
    expectAcp('Error', res.json());
    expect(res.json()).toMatchObject({
      type: 'invalid_request',
      code: 'invalid',
      param: '$.line_items[0].quantity',
    });
    const missing = await agent.create({ currency: 'usd', capabilities: noInterventions });
    expect(missing.json()).toMatchObject({ code: 'missing', param: '$.line_items' });
    const unknown = await agent.create({ ...createBody(), order_notes: 'ring twice' });
    expect(unknown.json()).toMatchObject({ code: 'invalid', param: '$.order_notes' });
  });

  it('answers delegate_payment card errors as invalid_card', async () => {
    const body = delegation('00000000-0000-7000-8000-000000000000', tenant.tenantId, 100, clock);
    const res = await agent.delegate({
      ...body,
      payment_method: { ...body.payment_method, exp_month: '13' },
    });
    expect(res.statusCode).toBe(400);
    expectDelegate('Error', res.json());
    expect(res.json()).toMatchObject({ code: 'invalid_card', param: '$.payment_method.exp_month' });
    // The card number is never echoed, not even in a refusal.
    expect(res.body).not.toContain('4242424242424242');
  });

  it('echoes Request-Id, and the Idempotency-Key on POST answers', async () => {
    const res = await agent.create(createBody(), {
      idempotencyKey: 'echo-key-1',
      headers: { 'request-id': 'req-acp-1' },
    });
    expect(res.headers['idempotency-key']).toBe('echo-key-1');
    expect(res.headers['request-id']).toBe('req-acp-1');
    const refused = await agent.create(createBody(), {
      version: null,
      headers: { 'request-id': 'req-acp-2' },
    });
    expect(refused.headers['request-id']).toBe('req-acp-2');
  });
});

describe('ACP edge: keys, scopes and tenants', () => {
  it('refuses a missing key (401) and a read key on a write (403), in ACP’s error shape', async () => {
    const anonymous = await acpClient(t, null).create(createBody());
    expect(anonymous.statusCode).toBe(401);
    expectAcp('Error', anonymous.json());
    const reader = await acpClient(t, tenant.keys.read).create(createBody());
    expect(reader.statusCode).toBe(403);
    expectAcp('Error', reader.json());
    expect(reader.json()).toMatchObject({ type: 'invalid_request', code: 'forbidden' });
    const delegated = await acpClient(t, tenant.keys.read).delegate(
      delegation('x', tenant.tenantId, 100, clock),
    );
    expect(delegated.statusCode).toBe(403);
  });
});

describe('ACP discovery: /.well-known/acp.json', () => {
  it('serves the discovery document without a key, cacheable for an hour', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/.well-known/acp.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expectAcp('DiscoveryResponse', res.json());
    expect(res.json()).toEqual({
      protocol: { name: 'acp', version: ACP_VERSION, supported_versions: [ACP_VERSION] },
      api_base_url: `${t.deps.config.publicBaseUrl.replace(/\/$/, '')}/api/v1`,
      transports: ['rest', 'mcp'],
      capabilities: { services: ['checkout', 'delegate_payment'], extensions: [{ name: 'discount' }] },
    });
  });
});
