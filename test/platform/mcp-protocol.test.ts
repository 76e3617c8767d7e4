import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_NAME } from '../../src/http/openapi.js';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { OutputSchemaChecker } from '../mcp/output-validation.js';

/**
 * /mcp serves two protocol revisions, chosen by each request: 2025-11-25 (the initialize
 * handshake) and 2026-07-28 (stateless: each request carries its version in `_meta` and the
 * MCP-Protocol-Version header; `server/discover` instead of initialize).
 */

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';

let t: TestApp;
let tenant: TestTenant;
let baseUrl: string;
const clients: Client[] = [];

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

const connect = async (key: string, version: 'legacy' | 'modern') => {
  const client = new Client(
    { name: 'mcp-protocol-test', version: '1.0.0' },
    version === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: bearer(key) },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
};

const envelope = (version = MODERN) => ({
  'io.modelcontextprotocol/protocolVersion': version,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1.0.0' },
});

/** One JSON-RPC request over plain HTTP, as a 2026-07-28 client sends it (no session, no handshake). */
const modernRequest = async (
  method: string,
  params: Record<string, unknown> = {},
  options: { key?: string | null; headerVersion?: string; bodyVersion?: string } = {},
) => {
  const name = (params.name ?? params.uri) as string | undefined;
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': options.headerVersion ?? MODERN,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
      ...(options.key === null ? {} : bearer(options.key ?? tenant.keys.commerce)),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method,
      params: { ...params, _meta: envelope(options.bodyVersion) },
    }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC answer of any method, read field by field
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

describe('MCP 2026-07-28 at /mcp: stateless requests', () => {
  it('answers server/discover without a handshake: versions, capabilities, identity, instructions', async () => {
    const res = await modernRequest('server/discover');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 7 });
    const result = res.body.result;
    expect(result.resultType).toBe('complete');
    expect(result.supportedVersions).toContain(MODERN);
    expect(result.capabilities).toMatchObject({ tools: {}, resources: {} });
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: SERVICE_NAME });
    expect(result.instructions).toContain('commerce://tools/{name}/output-schema');
  });

  it('serves tools/list and tools/call each on its own: no initialize, no session', async () => {
    const list = await modernRequest('tools/list');
    expect(list.status).toBe(200);
    expect(list.headers.get('mcp-session-id')).toBeNull();
    const { result } = list.body;
    expect(result.resultType).toBe('complete');
    // Cacheable results say for how long and for whom: the listing depends on the key.
    expect(result).toMatchObject({ ttlMs: 300_000, cacheScope: 'private' });
    const names = result.tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain('createOrder');
    expect(names).not.toContain('createApiKey');

    const call = await modernRequest('tools/call', { name: 'getManifest', arguments: {} });
    expect(call.status).toBe(200);
    expect(call.body.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { data: expect.any(Object), nextActions: expect.any(Array) },
    });
    expect(call.body.result.isError).toBeUndefined();
  });

  it('refuses a revision it does not serve, naming those it does', async () => {
    const res = await modernRequest(
      'tools/list',
      {},
      { headerVersion: '2099-01-01', bodyVersion: '2099-01-01' },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: -32022,
      data: { supported: expect.arrayContaining([MODERN]), requested: '2099-01-01' },
    });
  });

  it('refuses a request whose header and body name different revisions', async () => {
    const res = await modernRequest('tools/list', {}, { headerVersion: LEGACY });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32020);
  });

  it('answers the 2025 methods (initialize, ping) as unknown in a 2026 request', async () => {
    for (const method of ['initialize', 'ping']) {
      const res = await modernRequest(method);
      expect(res.status, method).toBe(404);
      expect(res.body.error.code, method).toBe(-32601);
    }
  });

  it('streams subscriptions/listen (acknowledged first), and closing the app ends an open stream', async () => {
    const own = await startApp();
    await own.app.listen({ port: 0, host: '127.0.0.1' });
    const address = own.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    const res = await fetch(`http://127.0.0.1:${address.port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'subscriptions/listen',
        ...bearer(tenant.keys.read),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'listen-1',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: envelope() },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value);
    }
    expect(received).toContain('notifications/subscriptions/acknowledged');
    // The stream stays open until the server ends it: closing the app does (it does not wait for
    // the stream), with the listen request's result, the graceful end the protocol names.
    await own.app.close();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      received += decoder.decode(chunk.value);
    expect(received).toMatch(/"id":"listen-1"/);
  });

  it('refuses a 2026 request without a valid key with the REST 401 body', async () => {
    const res = await modernRequest('tools/list', {}, { key: null });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'unauthorized' });
  });
});

describe('MCP at /mcp: the revision is negotiated per request', () => {
  it('serves a 2025-11-25 client and a 2026-07-28 client the same tools and results', async () => {
    const legacy = await connect(tenant.keys.commerce, 'legacy');
    const modern = await connect(tenant.keys.commerce, 'modern');
    expect(legacy.getNegotiatedProtocolVersion()).toBe(LEGACY);
    expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
    const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
    expect(await names(modern)).toEqual(await names(legacy));
    const manifest = async (client: Client) =>
      (await client.callTool({ name: 'getManifest', arguments: {} })).structuredContent;
    expect(await manifest(modern)).toEqual(await manifest(legacy));
    expect(modern.getInstructions()).toEqual(legacy.getInstructions());
  });
});

describe('MCP output schemas: the top level in tools/list, the whole schema as a resource', () => {
  it('describes data in the listing and every field in the tool’s output schema resource', async () => {
    const client = await connect(tenant.keys.commerce, 'modern');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toContainEqual(
      expect.objectContaining({
        uriTemplate: 'commerce://tools/{name}/output-schema',
        mimeType: 'application/schema+json',
      }),
    );
    const { tools } = await client.listTools();
    const listed = (name: string) => tools.find((tool) => tool.name === name)?.outputSchema;
    // The listing: the type of data (of its items for a list); the envelope's nextActions and meta,
    // which every tool has, are stated once in the instructions.
    expect(listed('getOrder')).toEqual({ type: 'object', properties: { data: { type: 'object' } } });
    expect(listed('listOrders')).toEqual({
      type: 'object',
      properties: { data: { type: 'array', items: { type: 'object' } } },
    });
    expect(listed('searchCatalog')).toEqual({
      type: 'object',
      properties: { data: { type: 'array', items: { type: 'object' } }, facets: { type: 'object' } },
    });
    // The resource: every field, with its own type and constraints.
    const read = await client.readResource({ uri: 'commerce://tools/getOrder/output-schema' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'application/schema+json' });
    const whole = JSON.parse((read.contents[0] as { text: string }).text);
    expect(whole.required).toEqual(['data', 'nextActions']);
    expect(whole.properties.data.required).toEqual(
      expect.arrayContaining(['id', 'status', 'items', 'totalCents']),
    );
    expect(whole.properties.data.properties).toMatchObject({
      id: { type: 'string', format: 'uuid' },
      status: { type: 'string' },
      items: { type: 'array', items: { type: 'object', required: expect.arrayContaining(['productId']) } },
      totalCents: { type: 'integer' },
    });
    // The document's shared schemas come along as local definitions: the schema stands alone.
    expect(whole.properties.nextActions.items).toEqual({ $ref: '#/$defs/NextAction' });
    expect(whole.$defs.NextAction.required).toEqual(
      expect.arrayContaining(['rel', 'method', 'href', 'allowed']),
    );
  });

  it('gives a key only the schemas of the tools it lists; an unknown URI is invalid params', async () => {
    const client = await connect(tenant.keys.commerce, 'legacy');
    await expect(
      client.readResource({ uri: 'commerce://tools/createApiKey/output-schema' }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    await expect(client.readResource({ uri: 'commerce://nothing-here' })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it('validates a result of each kind against both schemas: object, list, anyOf, 201 and 204', async () => {
    const admin = await connect(tenant.keys.admin, 'modern');
    const outputs = new OutputSchemaChecker();
    const ok = async (name: string, args: Record<string, unknown> = {}) => {
      const result = await admin.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${JSON.stringify(result.structuredContent)}`).toBeFalsy();
      await outputs.check(admin, name, result.structuredContent);
      return result.structuredContent as { data: { id: string } };
    };
    const account = await ok('createAccount', { name: 'Schema Co' });
    await ok('getAccount', { id: account.data.id });
    await ok('listAccounts', { limit: 2 });
    await ok('getCatalog');
    await ok('listWebhookEventTypes');
    // A tag answers the whole resource, one of four kinds (anyOf).
    await ok('setTag', { resource: 'accounts', id: account.data.id, key: 'tier', value: 'gold' });
    const promotion = await ok('createPromotion', {
      code: 'SCHEMA5',
      name: 'Five off',
      discountType: 'percent',
      percentOff: 5,
    });
    // 204: no content, the result is { data: null }.
    await ok('deletePromotion', { id: promotion.data.id });
    expect(outputs.checked.size).toBe(8);
    // The check is real: a result of another shape fails it.
    await expect(outputs.check(admin, 'getAccount', { data: [], nextActions: [] })).rejects.toThrow(
      /getAccount listed outputSchema/,
    );
  });
});
