import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';

// An MCP tool call is one request against the key's rate limit: the /mcp request. The route it
// runs inside (app.inject) is authenticated and scope-checked again, and not counted again.

let t: TestApp;
let tenant: TestTenant;

beforeAll(async () => {
  t = await startApp();
  // The standard tier (60 a minute): its remaining count is in every answer's headers.
  tenant = await createTestTenant(t.deps, { rateTier: 'standard' });
});
afterAll(() => t.app.close());

const remaining = (res: { headers: Record<string, unknown> }) => Number(res.headers['x-ratelimit-remaining']);

const mcp = (body: object) =>
  t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      ...bearer(tenant.keys.read),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    payload: body,
  });

describe('MCP and the rate limit', () => {
  it('counts a tool call once: the /mcp request, not the route it runs', async () => {
    const first = await api(t, tenant.keys.read).get('/orders');
    expect(first.statusCode).toBe(200);
    const start = remaining(first);

    const call = await mcp({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'listOrders', arguments: {} },
    });
    expect(call.statusCode, call.body).toBe(200);
    const result = call.json().result;
    expect(result.isError).toBeUndefined();
    expect(result._meta.httpStatus).toBe(200);
    expect(remaining(call)).toBe(start - 1);

    const after = await api(t, tenant.keys.read).get('/orders');
    expect(remaining(after)).toBe(start - 2);
  });

  it('still checks the scope of the route a tool call runs', async () => {
    const before = remaining(await api(t, tenant.keys.read).get('/orders'));
    const call = await mcp({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'createCart', arguments: {} },
    });
    expect(call.statusCode).toBe(200);
    const result = call.json().result;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: 'forbidden' });
    expect(remaining(call)).toBe(before - 1);
  });
});
