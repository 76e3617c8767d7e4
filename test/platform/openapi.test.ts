import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  'x-required-scope'?: string | null;
  requestBody?: unknown;
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};

describe('OpenAPI document', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let doc: {
    openapi: string;
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: object };
  };

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  });
  afterAll(() => t.app.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every public route and no internal one', () => {
    const listed = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const expected = t.app.registry.publicOperations.map(
      (op) => `${op.method} ${op.url.replace(/:(\w+)/g, '{$1}')}`,
    );
    expect(listed.sort()).toEqual(expected.sort());
    expect(expected).toContain('GET /api/v1/manifest');
    for (const internal of ['/healthz', '/readyz', '/openapi.json'])
      expect(doc.paths[internal]).toBeUndefined();
  });

  it('describes every operation for an agent: id, summary, description, tags, scope, schemas', () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method} ${path}`;
        expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
        expect(op.summary, where).toBeTruthy();
        expect(op.description?.length, where).toBeGreaterThan(30);
        expect(op.tags?.length, where).toBeGreaterThan(0);
        expect(op, where).toHaveProperty('x-required-scope');
        expect(op.security, where).toEqual(op['x-required-scope'] ? [{ apiKey: [] }] : []);
        for (const [status, response] of Object.entries(op.responses)) {
          // JSON, or the one streamed file (the ACP product feed, JSON Lines).
          const media = response.content?.['application/json'] ?? response.content?.['application/x-ndjson'];
          if (status !== '204') expect(media?.schema, `${where} ${status}`).toBeDefined();
          expect(response.description, `${where} ${status}`).not.toBe('Default Response');
        }
        expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(['429', '500', '503']));
        if (op['x-required-scope'])
          expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(['401', '403']));
        if (op.requestBody)
          expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(['400', '413', '415']));
      }
    }
  });

  it('links every create (201) to the operations on what it created, each to a real operation and its path parameters', async () => {
    type Link = { operationId: string; parameters: Record<string, string> };
    const byId = new Map(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.values(ops).map((op) => [op.operationId, path] as const),
      ),
    );
    const creates = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => op.responses['201'])
        .map(([method, op]) => ({ where: `${method} ${path}`, path, op })),
    );
    expect(creates.length).toBeGreaterThan(20);
    for (const { where, path, op } of creates) {
      const links = (op.responses['201'] as { links?: Record<string, Link> }).links ?? {};
      expect(Object.keys(links).length, where).toBeGreaterThan(0);
      for (const link of Object.values(links)) {
        const target = byId.get(link.operationId);
        expect(target, `${where} -> ${link.operationId}`).toBeDefined();
        const params = [...(target ?? '').matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        expect(Object.keys(link.parameters).sort(), `${where} -> ${link.operationId}`).toEqual(params.sort());
        for (const [name, expression] of Object.entries(link.parameters)) {
          expect(expression, `${where} -> ${link.operationId}.${name}`).toMatch(
            /^\$response\.body#\/data(\/\w+)+$|^\$request\.path\.\w+$/,
          );
          if (expression.startsWith('$request.path.'))
            expect(path, `${where} -> ${link.operationId}.${name}`).toContain(`{${expression.slice(14)}}`);
        }
      }
    }
    // Followed: the link from createAccount to getAccount reaches the account just created.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/accounts',
      headers: bearer(tenant.keys.commerce),
      payload: { name: 'Linked' },
    });
    expect(created.statusCode).toBe(201);
    const createAccount = doc.paths['/api/v1/accounts']?.post;
    const link = (createAccount?.responses['201'] as { links?: Record<string, Link> } | undefined)?.links
      ?.getAccount;
    expect(link?.parameters).toEqual({ id: '$response.body#/data/id' });
    const url = (byId.get('getAccount') ?? '').replace('{id}', created.json().data.id);
    const read = await t.app.inject({ method: 'GET', url, headers: bearer(tenant.keys.read) });
    expect(read.statusCode).toBe(200);
    expect(read.json().data.name).toBe('Linked');
  });

  it('shares the error and nextAction schemas as components', () => {
    expect(doc.components.schemas).toHaveProperty('Error');
    expect(doc.components.schemas).toHaveProperty('NextAction');
    const create = doc.paths['/api/v1/admin/api-keys']?.post;
    expect(create?.['x-required-scope']).toBe('admin');
    expect(create?.responses['400']).toMatchObject({
      description: 'Validation failed: the error names the field and the rule.',
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: { validation_failed: { $ref: '#/components/examples/validation_failed' } },
        },
      },
      headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
    });
  });

  it('is served identically at the three discovery paths, without auth', async () => {
    for (const url of ['/.well-known/agent-tools.json', '/openapi.json']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(doc);
    }
  });

  it('allows cross-origin GET and preflight on discovery documents only', async () => {
    for (const url of ['/api/v1/openapi.json', '/.well-known/agent-tools.json']) {
      const get = await t.app.inject({ method: 'GET', url, headers: { origin: 'https://agent.example' } });
      expect(get.headers['access-control-allow-origin']).toBe('*');
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
      expect(preflight.headers['access-control-allow-methods']).toContain('GET');
    }
    const data = await t.app.inject({
      method: 'GET',
      url: '/api/v1/manifest',
      headers: { ...bearer(tenant.keys.read), origin: 'https://agent.example' },
    });
    expect(data.statusCode).toBe(200);
    expect(Object.keys(data.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const dataPreflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/manifest',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
    });
    expect(dataPreflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('tells agents at its top level how to connect, authenticate, pace and retry (x-agent)', () => {
    const agent = (doc as unknown as { 'x-agent': Record<string, unknown> })['x-agent'];
    expect(agent).toMatchObject({
      mcp: { url: `${t.deps.config.publicBaseUrl.replace(/\/$/, '')}/mcp`, transport: 'streamable-http' },
      auth: { scheme: 'bearer', header: 'Authorization' },
      scopes: {
        read: expect.any(String),
        commerce: expect.any(String),
        admin: expect.any(String),
      },
      scopeOrder: ['read', 'commerce', 'admin'],
      rateLimits: { windowSeconds: 60, tiers: { standard: 60, premium: 300, unlimited: 10000 } },
      idempotency: {
        header: 'Idempotency-Key',
        methods: ['POST', 'PUT', 'PATCH'],
        maxLength: 255,
        retentionHours: 24,
        replayHeader: 'X-Idempotency-Replayed',
      },
    });
    const operationIds = Object.values(doc.paths).flatMap((ops) =>
      Object.values(ops).map((op) => op.operationId),
    );
    const flow = agent.typicalFlow as string[];
    expect(flow).toEqual([
      'getManifest',
      'getCatalog',
      'createAccount',
      'createCart',
      'addCartItem',
      'createOrder',
      'payInvoice',
      'completePaymentSession',
    ]);
    for (const id of flow) expect(operationIds, id).toContain(id);
  });
});
