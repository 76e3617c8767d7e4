import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { platformProfile, startPlatform } from './schemas/ucp/platform.js';
import { instrument, stockShop } from './schemas/ucp/shop.js';
import { assertUcp } from './schemas/ucp/validator.js';

// UCP's MCP binding at /ucp/mcp (checkout-mcp.md): the tools, `meta` with the platform profile,
// errors as UCP maps them to JSON-RPC.

let t: TestApp;
let shop: TestTenant;
let baseUrl: string;
let platform: Awaited<ReturnType<typeof startPlatform>>;
const clients: Client[] = [];

const connect = async (key: string) => {
  const client = new Client({ name: 'ucp-mcp-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/ucp/mcp`), {
      requestInit: { headers: bearer(key) },
    }),
  );
  clients.push(client);
  return client;
};

const meta = (profile: string, key?: string) => ({
  'ucp-agent': { profile },
  ...(key ? { 'idempotency-key': key } : {}),
});

beforeAll(async () => {
  t = await startApp();
  shop = await createTestTenant(t.deps);
  platform = await startPlatform();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  baseUrl = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await t.app.close();
  await platform.close();
});

describe('UCP MCP binding', () => {
  it('a checkout through the tools: create, complete, get the order (each result a valid UCP body)', async () => {
    const stock = await stockShop(t, shop);
    const profile = platform.serve('/flow', { body: platformProfile() });
    const client = await connect(shop.keys.commerce);
    const created = await client.callTool({
      name: 'create_checkout',
      arguments: {
        meta: meta(profile),
        checkout: { line_items: [{ item: { id: stock.ebook }, quantity: 2 }] },
      },
    });
    assertUcp('checkout', created.structuredContent);
    const checkout = created.structuredContent as { id: string; status: string };
    expect(checkout.status).toBe('ready_for_complete');
    expect(JSON.parse((created.content as { text: string }[])[0]?.text ?? '')).toEqual(checkout);
    const completed = await client.callTool({
      name: 'complete_checkout',
      arguments: {
        meta: meta(profile, 'mcp-complete-1'),
        id: checkout.id,
        checkout: instrument('success_token'),
      },
    });
    assertUcp('checkout', completed.structuredContent);
    const done = completed.structuredContent as { status: string; order: { id: string } };
    expect(done.status).toBe('completed');
    const order = await client.callTool({
      name: 'get_order',
      arguments: { meta: meta(profile), id: done.order.id },
    });
    assertUcp('order', order.structuredContent);
    const again = await client.callTool({
      name: 'cancel_checkout',
      arguments: { meta: meta(profile, 'mcp-cancel-1'), id: checkout.id },
    });
    expect(again.isError).toBe(true);
    assertUcp('error', again.structuredContent);
  });

  it('lists the catalog, checkout and order tools, each with its input schema', async () => {
    const { tools } = await (await connect(shop.keys.read)).listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'cancel_checkout',
      'complete_checkout',
      'create_checkout',
      'get_checkout',
      'get_order',
      'get_product',
      'lookup_catalog',
      'search_catalog',
      'update_checkout',
    ]);
    const complete = tools.find((tool) => tool.name === 'complete_checkout');
    expect(complete?.inputSchema.required).toEqual(['meta', 'id', 'checkout']);
  });

  it('a profile that cannot be fetched: JSON-RPC error -32001 with UCP’s code', async () => {
    const client = await connect(shop.keys.read);
    const call = client.callTool({
      name: 'get_checkout',
      arguments: { meta: meta('http://127.0.0.1:1/profile'), id: '0190b000-0000-7000-8000-00000000beef' },
    });
    await expect(call).rejects.toMatchObject({ code: -32001, data: { code: 'profile_unreachable' } });
  });

  it('another protocol version: -32001 version_unsupported', async () => {
    const old = platform.serve('/old', { body: platformProfile({ version: '2026-01-23' }) });
    const client = await connect(shop.keys.read);
    const call = client.callTool({
      name: 'get_checkout',
      arguments: { meta: meta(old), id: '0190b000-0000-7000-8000-00000000beef' },
    });
    await expect(call).rejects.toMatchObject({ code: -32001, data: { code: 'version_unsupported' } });
  });

  it('arguments that do not fit the tool (no meta, or complete without an idempotency key): -32602', async () => {
    const client = await connect(shop.keys.commerce);
    await expect(
      client.callTool({ name: 'get_checkout', arguments: { id: '0190b000-0000-7000-8000-00000000beef' } }),
    ).rejects.toMatchObject({ code: -32602 });
    const profile = platform.serve('/ok', { body: platformProfile() });
    await expect(
      client.callTool({
        name: 'cancel_checkout',
        arguments: { meta: meta(profile), id: '0190b000-0000-7000-8000-00000000beef' },
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('no capability in common: a result carrying UCP’s error response (a business outcome)', async () => {
    const orderOnly = platform.serve('/order-only', { body: platformProfile({ capabilities: ['order'] }) });
    const client = await connect(shop.keys.read);
    const result = await client.callTool({
      name: 'get_checkout',
      arguments: { meta: meta(orderOnly), id: '0190b000-0000-7000-8000-00000000beef' },
    });
    assertUcp('error', result.structuredContent);
    expect((result.structuredContent as { messages: { code: string }[] }).messages[0]?.code).toBe(
      'capabilities_incompatible',
    );
  });

  it('a write with a read key: -32000 (protocol error, forbidden)', async () => {
    const profile = platform.serve('/ok2', { body: platformProfile() });
    const client = await connect(shop.keys.read);
    const call = client.callTool({
      name: 'cancel_checkout',
      arguments: { meta: meta(profile, 'k-1'), id: '0190b000-0000-7000-8000-00000000beef' },
    });
    await expect(call).rejects.toMatchObject({ code: -32000, data: { code: 'forbidden' } });
  });
});
