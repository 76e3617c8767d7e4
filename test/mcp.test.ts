import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations } from '../src/modules/accounts/tables.js';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from './harness.js';

type Envelope<T = Record<string, unknown>> = {
  data: T;
  nextActions: { rel: string; method: string; href: string; allowed: boolean }[];
};

describe('MCP server at /mcp (SDK client over HTTP)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let baseUrl: string;
  const clients: Client[] = [];

  const connect = async (key: string) => {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: bearer(key) },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };

  const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args });

  const ok = async <T = Record<string, unknown>>(
    client: Client,
    name: string,
    args: Record<string, unknown> = {},
  ) => {
    const result = await call(client, name, args);
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.structuredContent)}`);
    return result.structuredContent as Envelope<T>;
  };

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await t.app.close();
  });

  it('lists one tool per public operation the key may call, with schemas and annotations', async () => {
    const ops = t.app.registry.publicOperations;
    const names = async (key: string) =>
      (await (await connect(key)).listTools()).tools.map((tool) => tool.name).sort();
    const rank = { read: 0, commerce: 1, admin: 2 } as const;
    for (const scope of ['read', 'commerce', 'admin'] as const) {
      const expected = ops
        .filter((op) => op.scope === null || rank[op.scope] <= rank[scope])
        .map((op) => op.operationId)
        .sort();
      expect(await names(tenant.keys[scope]), scope).toEqual(expected);
    }
    const admin = await names(tenant.keys.admin);
    expect(admin).toHaveLength(ops.length);
    expect(await names(tenant.keys.read)).not.toContain('createOrder');
    expect(await names(tenant.keys.commerce)).not.toContain('createApiKey');

    const { tools } = await (await connect(tenant.keys.admin)).listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const addItem = byName.get('addCartItem');
    expect(addItem?.description).toContain('POST /api/v1/carts/{id}/items');
    expect(addItem?.inputSchema).toMatchObject({
      type: 'object',
      required: ['id', 'body'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        body: { type: 'object', required: ['productId'] },
        idempotencyKey: { type: 'string', maxLength: 255 },
      },
    });
    expect(addItem?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(byName.get('listOrders')?.inputSchema.properties).toHaveProperty('status');
    expect(byName.get('listOrders')?.inputSchema.properties).not.toHaveProperty('idempotencyKey');
    expect(byName.get('getCatalog')?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName.get('previewCancellation')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('cancelSubscription')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.get('deleteWebhook')?.annotations).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(byName.get('putBillingIntegration')?.annotations).toMatchObject({ idempotentHint: true });
    // It force-marks a session paid: destructive, and its description asks for external proof.
    const complete = byName.get('completePaymentSession');
    expect(complete?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(complete?.description).toContain('external proof of payment');
  });

  it('refuses a request without a valid key with the REST 401 body', async () => {
    const res = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    await expect(connect('cak_test_not_a_real_key_0000000000000000')).rejects.toThrow();
  });

  it('answers GET and DELETE with 405: the endpoint is stateless, POST only', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${baseUrl}/mcp`, {
        method,
        headers: { ...bearer(tenant.keys.read), accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('walks account -> cart -> order -> payment -> complete through tools alone', async () => {
    const admin = await connect(tenant.keys.admin);
    const agent = await connect(tenant.keys.commerce);
    await ok(admin, 'putBillingIntegration', { body: { adapter: 'builtin' } });
    const product = await ok<{ id: string }>(admin, 'createProduct', {
      body: {
        name: 'Workshop',
        type: 'one_time',
        currency: 'USD',
        charges: [{ name: 'Seat', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 2500 }] }],
      },
    });
    const billing = await ok<{ id: string }>(admin, 'createBillingAccount', {
      body: { name: 'Initech', currency: 'USD' },
    });

    const account = await ok<{ id: string }>(agent, 'createAccount', {
      body: { name: 'Initech', externalId: billing.data.id },
    });
    const catalog = await ok<{ id: string }[]>(agent, 'getCatalog');
    expect(catalog.data.map((p) => p.id)).toContain(product.data.id);
    const cart = await ok<{ id: string }>(agent, 'createCart', { body: { currency: 'USD' } });
    const withItem = await ok<{ totalCents: number }>(agent, 'addCartItem', {
      id: cart.data.id,
      body: { productId: product.data.id, quantity: 2 },
      idempotencyKey: 'mcp-add-1',
    });
    expect(withItem.data.totalCents).toBe(5000);
    const order = await ok<{ id: string; invoiceId: string; totalCents: number; status: string }>(
      agent,
      'createOrder',
      { body: { cartId: cart.data.id, organizationId: account.data.id } },
    );
    expect(order.data).toMatchObject({ totalCents: 5000, status: 'pending' });
    expect(order.data.invoiceId).toMatch(/^in_/);
    expect(order.nextActions.map((a) => a.rel)).toContain('payInvoice');

    const session = await ok<{ id: string; status: string }>(agent, 'payInvoice', {
      id: order.data.invoiceId,
      body: { accountId: account.data.id, amountCents: 5000, currency: 'USD' },
    });
    expect(session.data.status).toBe('pending');
    const completed = await ok<{ status: string }>(agent, 'completePaymentSession', {
      id: session.data.id,
      idempotencyKey: 'mcp-complete-1',
    });
    expect(completed.data.status).toBe('success');
    const invoices = await ok<{ id: string; status: string }[]>(agent, 'listAccountInvoices', {
      id: account.data.id,
    });
    expect(invoices.data).toEqual([expect.objectContaining({ id: order.data.invoiceId, status: 'paid' })]);

    // The tool calls ran the real routes: the order's creation is in the audit log.
    const audit = await ok<{ action: string }[]>(admin, 'listAuditLogs', { resourceId: order.data.id });
    expect(audit.data.map((e) => e.action)).toEqual(['order.create']);
  });

  it('returns errors as isError with the full REST error body', async () => {
    const agent = await connect(tenant.keys.commerce);
    const invalid = await call(agent, 'createCart', { body: { currency: 'usd' } });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toMatchObject({
      code: 'validation_failed',
      error: expect.any(String),
      requestId: expect.any(String),
      details: [expect.objectContaining({ field: 'currency' })],
    });
    expect(JSON.parse((invalid.content as { text: string }[])[0]?.text ?? '')).toEqual(
      invalid.structuredContent,
    );
    expect(invalid._meta).toMatchObject({ httpStatus: 400 });

    const missing = await call(agent, 'getOrder', { id: '01900000-0000-7000-8000-000000000999' });
    expect(missing).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });

    // A tool the key's scope does not list is still refused by the route itself.
    const forbidden = await call(agent, 'createApiKey', { body: { name: 'x', scopes: ['read'] } });
    expect(forbidden).toMatchObject({ isError: true, structuredContent: { code: 'forbidden' } });

    const unknown = await call(agent, 'noSuchTool');
    expect(unknown).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
  });

  it('replays a write with the same idempotency key instead of running it again', async () => {
    const agent = await connect(tenant.keys.commerce);
    const args = { body: { name: 'Replay Co' }, idempotencyKey: 'mcp-replay-1' };
    const first = await call(agent, 'createAccount', args);
    const second = await call(agent, 'createAccount', args);
    expect(first.isError).toBeFalsy();
    expect(first._meta).toMatchObject({ httpStatus: 201 });
    expect(second._meta).toMatchObject({ httpStatus: 201, idempotentReplayed: true });
    expect(second.structuredContent).toEqual(first.structuredContent);
    const rows = await t.deps.db
      .select()
      .from(organizations)
      .where(and(eq(organizations.tenantId, tenant.tenantId), eq(organizations.name, 'Replay Co')));
    expect(rows).toHaveLength(1);

    const conflict = await call(agent, 'createAccount', { ...args, body: { name: 'Other Co' } });
    expect(conflict).toMatchObject({ isError: true, structuredContent: { code: 'idempotency_conflict' } });
  });

  it('serves the catalog and the OpenAPI document as read-only resources', async () => {
    const client = await connect(tenant.keys.read);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['commerce://catalog', 'commerce://openapi.json']);
    const doc = await client.readResource({ uri: 'commerce://openapi.json' });
    const text = (doc.contents[0] as { text: string }).text;
    expect(JSON.parse(text)).toMatchObject({ openapi: '3.1.0' });
    const catalog = await client.readResource({ uri: 'commerce://catalog' });
    expect(JSON.parse((catalog.contents[0] as { text: string }).text)).toHaveProperty('data');
  });
});
