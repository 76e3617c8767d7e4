import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { catalogClient, KITCHEN, stockCatalog } from './schemas/ucp/catalog-shop.js';
import { platformProfile, startPlatform } from './schemas/ucp/platform.js';
import { assertUcp, type UcpSchema } from './schemas/ucp/validator.js';

// UCP's catalog over MCP (catalog/mcp.md) at /ucp/mcp: search_catalog, lookup_catalog and
// get_product, `catalog` the REST body, the same answers as REST in structuredContent.

let t: TestApp;
let shop: TestTenant;
let ids: Awaited<ReturnType<typeof stockCatalog>>;
let platform: Awaited<ReturnType<typeof startPlatform>>;
let profile: string;
let client: Client;

beforeAll(async () => {
  t = await startApp();
  shop = await createTestTenant(t.deps);
  ids = await stockCatalog(t, shop, await createTestTenant(t.deps));
  platform = await startPlatform();
  profile = platform.serve('/catalog', {
    body: platformProfile({ capabilities: ['catalog.search', 'catalog.lookup'] }),
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  client = new Client({ name: 'ucp-catalog-mcp-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${address.port}/ucp/mcp`), {
      requestInit: { headers: bearer(shop.keys.read) },
    }),
  );
});
afterAll(async () => {
  await client.close();
  await t.app.close();
  await platform.close();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are checked against UCP's JSON Schemas first.
type Answer = Record<string, any>;

/** Calls a catalog tool with `catalog` (checked against `schemas[0]`); its result checked against `schemas[1]`. */
async function tool(name: string, schemas: [UcpSchema, UcpSchema], catalog: unknown): Promise<Answer> {
  assertUcp(schemas[0], catalog);
  const result = await client.callTool({ name, arguments: { meta: { 'ucp-agent': { profile } }, catalog } });
  expect(result.isError).toBeFalsy();
  assertUcp(schemas[1], result.structuredContent);
  expect(JSON.parse((result.content as { text: string }[])[0]?.text ?? '')).toEqual(result.structuredContent);
  return result.structuredContent as Answer;
}

describe('the catalog tools of /ucp/mcp', () => {
  it('are listed, each taking meta and catalog', async () => {
    const { tools } = await client.listTools();
    for (const name of ['search_catalog', 'lookup_catalog', 'get_product']) {
      const found = tools.find((x) => x.name === name);
      expect(found?.inputSchema.required, name).toEqual(['meta', 'catalog']);
      expect(found?.annotations?.readOnlyHint, name).toBe(true);
    }
  });

  it('search_catalog answers what POST /catalog/search answers', async () => {
    const catalog = { query: 'knife', filters: { categories: [KITCHEN] }, pagination: { limit: 1 } };
    const answer = await tool('search_catalog', ['searchRequest', 'searchResponse'], catalog);
    const rest = await catalogClient(t, shop.keys.read, profile).search(catalog);
    expect(answer).toEqual(rest.json());
    expect(answer.pagination).toMatchObject({ has_next_page: true, total_count: 2 });
    const next = await tool('search_catalog', ['searchRequest', 'searchResponse'], {
      ...catalog,
      pagination: { limit: 1, cursor: answer.pagination.cursor },
    });
    expect(next.products.map((p: Answer) => p.id)).not.toContain(answer.products[0].id);
  });

  it('lookup_catalog: the products found, and not_found for an unknown or another tenant’s id', async () => {
    const answer = await tool('lookup_catalog', ['lookupRequest', 'lookupResponse'], {
      ids: [ids.knife, ids.foreign, ids.draft],
    });
    expect(answer.products.map((p: Answer) => p.id)).toEqual([ids.knife]);
    expect(answer.messages).toEqual([
      { type: 'info', code: 'not_found', content: ids.foreign },
      { type: 'info', code: 'not_found', content: ids.draft },
    ]);
  });

  it('get_product: the product; not found is a result with ucp.status "error", not a JSON-RPC error', async () => {
    const answer = await tool('get_product', ['getProductRequest', 'getProductResponse'], { id: ids.knife });
    expect(answer.product).toMatchObject({ id: ids.knife, handle: 'chef-knife-20cm' });
    const missing = await client.callTool({
      name: 'get_product',
      arguments: { meta: { 'ucp-agent': { profile } }, catalog: { id: ids.foreign } },
    });
    assertUcp('error', missing.structuredContent);
    expect(missing.structuredContent).toMatchObject({
      ucp: { status: 'error' },
      messages: [{ code: 'not_found', severity: 'unrecoverable' }],
    });
  });

  it('bad input is -32602: arguments that do not fit, a batch over 50, a search with nothing to search by', async () => {
    const meta = { 'ucp-agent': { profile } };
    const calls = [
      { name: 'search_catalog', arguments: { meta } },
      {
        name: 'lookup_catalog',
        arguments: { meta, catalog: { ids: Array.from({ length: 51 }, (_, i) => `${i}`) } },
      },
      { name: 'search_catalog', arguments: { meta, catalog: {} } },
      { name: 'get_product', arguments: { catalog: { id: ids.knife } } },
    ];
    for (const call of calls)
      await expect(client.callTool(call), call.name).rejects.toMatchObject({ code: -32602 });
  });
});
