import { execFile, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TYPICAL_FLOW } from '../../src/core/agent-guide.js';
import { ERROR_CODES, type ErrorCode } from '../../src/core/errors.js';
import { issueApiKey } from '../../src/modules/api-keys/index.js';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';

/** What the reference page reads beyond the schemas: error examples, headers, tags, code samples. */

type Ref = { $ref: string };
type Media = { schema?: Ref; examples?: Record<string, Ref> };
type Response = { headers?: Record<string, Ref>; content?: Record<string, Media> };
type CodeSample = { lang: string; label: string; source: string };
type Operation = {
  operationId: string;
  tags: string[];
  'x-required-scope': string | null;
  'x-codeSamples': CodeSample[];
  requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, Response>;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  tags: { name: string; description?: string }[];
  'x-tagGroups': { name: string; tags: string[] }[];
  servers: { url: string }[];
  components: {
    examples: Record<string, { summary: string; value: { code: ErrorCode } }>;
    headers: Record<string, { schema: object; description: string }>;
  };
};

const WRITES = new Set(['post', 'put', 'patch']);
const nameOf = (ref: Ref) => ref.$ref.split('/').pop() as string;

describe('OpenAPI document for the reference page', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let doc: Doc;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    baseUrl = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => t.app.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op, where: `${method} ${path}` })),
    );
  const byId = (id: string) => {
    const found = operations().find(({ op }) => op.operationId === id);
    if (!found) throw new Error(`no operation ${id}`);
    return found;
  };
  const exampleCodes = (op: Operation, status: string) =>
    Object.values(op.responses[status]?.content?.['application/json']?.examples ?? {}).map(
      (ref) => doc.components.examples[nameOf(ref)]?.value.code,
    );

  it('shows, on every error response, named examples whose code is one of that status', () => {
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(structuredClone(doc), 'openapi');
    const validateError = ajv.getSchema('openapi#/components/schemas/Error');
    let checked = 0;
    for (const { op, where } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.['application/json'];
        if (status.startsWith('2') || media?.schema?.$ref !== '#/components/schemas/Error') continue;
        const names = Object.keys(media.examples ?? {});
        expect(names.length, `${where} ${status}`).toBeGreaterThan(0);
        for (const [name, ref] of Object.entries(media.examples ?? {})) {
          const example = doc.components.examples[nameOf(ref)];
          expect(example, `${where} ${status} ${name}`).toBeDefined();
          expect(example?.value.code, `${where} ${status}`).toBe(name);
          expect(ERROR_CODES[name as ErrorCode], `${where} ${status} ${name}`).toBe(Number(status));
          expect(validateError?.(example?.value), JSON.stringify(validateError?.errors)).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('names the codes each status really carries, the route’s own first', () => {
    const manifest = byId('getManifest').op;
    expect(exampleCodes(manifest, '401')).toEqual(['unauthorized']);
    expect(exampleCodes(manifest, '403')).toEqual(['forbidden']);
    expect(exampleCodes(manifest, '429')).toEqual(['rate_limited']);
    expect(exampleCodes(manifest, '500')).toEqual(['internal']);
    expect(exampleCodes(manifest, '503')).toEqual(['service_unavailable', 'overloaded']);
    // A route's own codes, read off its description, come first.
    const addCartItem = byId('addCartItem').op;
    expect(exampleCodes(addCartItem, '400')).toEqual(['validation_failed']);
    expect(exampleCodes(addCartItem, '409')).toEqual(['cart_checked_out', 'idempotency_in_flight']);
    expect(exampleCodes(addCartItem, '422')).toEqual(['idempotency_conflict']);
    // The old single example said validation_failed on every status.
    const codes = new Set(operations().flatMap(({ op }) => exampleCodes(op, '401')));
    expect([...codes]).toEqual(['unauthorized']);
  });

  it('declares the headers the server sends on every response', () => {
    expect(Object.keys(doc.components.headers).sort()).toEqual([
      'Retry-After',
      'X-Idempotency-Replayed',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-Request-Id',
    ]);
    for (const { method, op, where } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        const declared = Object.keys(response.headers ?? {});
        expect(declared, `${where} ${status}`).toEqual(
          expect.arrayContaining([
            'X-Request-Id',
            'X-RateLimit-Limit',
            'X-RateLimit-Remaining',
            'X-RateLimit-Reset',
          ]),
        );
        if (['429', '503'].includes(status)) expect(declared, `${where} ${status}`).toContain('Retry-After');
        if (status.startsWith('2') && WRITES.has(method))
          expect(declared, `${where} ${status}`).toContain('X-Idempotency-Replayed');
        else expect(declared, `${where} ${status}`).not.toContain('X-Idempotency-Replayed');
      }
    }
  });

  it('the declared headers are the ones a real answer carries', async () => {
    const declared = (op: Operation, status: string) =>
      Object.keys(op.responses[status]?.headers ?? {}).map((h) => h.toLowerCase());
    const manifest = await t.app.inject({
      method: 'GET',
      url: '/api/v1/manifest',
      headers: bearer(tenant.keys.read),
    });
    expect(manifest.statusCode).toBe(200);
    for (const header of declared(byId('getManifest').op, '200'))
      expect(manifest.headers, header).toHaveProperty(header);

    const idempotencyKey = randomUUID();
    const create = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/accounts',
        headers: { ...bearer(tenant.keys.commerce), 'idempotency-key': idempotencyKey },
        payload: { name: 'Headers' },
      });
    expect((await create()).headers['x-idempotency-replayed']).toBeUndefined();
    const replay = await create();
    expect(replay.statusCode).toBe(201);
    for (const header of declared(byId('createAccount').op, '201'))
      expect(replay.headers, header).toHaveProperty(header);
    expect(replay.headers['x-idempotency-replayed']).toBe('true');

    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/manifest' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('unauthorized');
    for (const header of declared(byId('getManifest').op, '401'))
      expect(anonymous.headers, header).toHaveProperty(header);

    const limited = await createTestTenant(t.deps);
    const { secret } = await issueApiKey(t.deps.db, limited.tenantId, {
      name: 'standard',
      scopes: ['read'],
      rateTier: 'standard',
      environment: t.deps.config.appEnv,
    });
    let refused: Awaited<ReturnType<typeof t.app.inject>> | undefined;
    for (let i = 0; i <= 60 && !refused; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/manifest', headers: bearer(secret) });
      if (res.statusCode === 429) refused = res;
    }
    expect(refused?.json().code).toBe('rate_limited');
    for (const header of declared(byId('getManifest').op, '429'))
      expect(refused?.headers, header).toHaveProperty(header);
    expect(Number(refused?.headers['retry-after'])).toBe(refused?.json().retryAfterSeconds);
  });

  it('lists the tags in the order of the typical flow, each described, admin groups in their own section', () => {
    const names = doc.tags.map((tag) => tag.name);
    for (const tag of doc.tags) expect(tag.description?.length, tag.name).toBeGreaterThan(20);
    const used = new Set(operations().flatMap(({ op }) => op.tags));
    expect([...used].filter((tag) => !names.includes(tag))).toEqual([]);
    expect(names.filter((tag) => !used.has(tag))).toEqual([]);
    // Every tag in exactly one group, in the same order.
    expect(doc['x-tagGroups'].flatMap((group) => group.tags)).toEqual(names);
    // The flow's operations appear in flow order.
    const flowTags = TYPICAL_FLOW.map((id) => byId(id).op.tags[0] as string);
    const positions = flowTags.map((tag) => names.indexOf(tag));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(names.slice(0, 6)).toEqual(['Discovery', 'Catalog', 'Accounts', 'Carts', 'Orders', 'Payments']);
    // The administration section holds admin operations only, and every admin-only tag is in it.
    const admin = doc['x-tagGroups'].find((group) => group.name === 'Administration');
    const scopesOf = (tag: string) =>
      new Set(
        operations()
          .filter(({ op }) => op.tags.includes(tag))
          .map(({ op }) => op['x-required-scope']),
      );
    for (const tag of admin?.tags ?? []) expect([...scopesOf(tag)], tag).toEqual(['admin']);
    const adminOnly = names.filter((tag) => [...scopesOf(tag)].every((scope) => scope === 'admin'));
    expect(adminOnly.filter((tag) => !admin?.tags.includes(tag))).toEqual([]);
    expect(doc['x-tagGroups'].at(-1)?.name).toBe('Administration');
  });

  it('gives every operation a curl and a TypeScript sample built from it', () => {
    for (const { path, method, op, where } of operations()) {
      const [curl, typescript] = op['x-codeSamples'];
      expect(curl?.label, where).toBe('curl');
      expect(curl?.source, where).toContain(`curl -X ${method.toUpperCase()} "${doc.servers[0]?.url}`);
      expect(curl?.source.includes('Authorization: Bearer $API_KEY'), where).toBe(
        Boolean(op['x-required-scope']),
      );
      expect(curl?.source.includes('Idempotency-Key'), where).toBe(WRITES.has(method));
      expect(typescript?.lang, where).toBe('TypeScript');
      expect(typescript?.source, where).toContain("from '@commerce-agent/client'");
      expect(typescript?.source, where).toContain(`api.${method.toUpperCase()}('${path}'`);
    }
    const cart = byId('addCartItem');
    expect(cart.op['x-codeSamples'][0]?.source).toMatch(/\/carts\/\$ID\/items"/);
    expect(cart.op['x-codeSamples'][1]?.source).toContain("params: { path: { id: 'ID' } }");
    expect(cart.op['x-codeSamples'][1]?.source).toContain(
      'productId: "0190b000-0000-7000-8000-000000000003"',
    );
    const check = byId('checkEntitlement');
    expect(check.op['x-codeSamples'][0]?.source).toContain(
      '/entitlements/check?accountId=$ACCOUNT_ID&feature=$FEATURE"',
    );
    expect(check.op['x-codeSamples'][1]?.source).toContain(
      "query: { accountId: 'ACCOUNT_ID', feature: 'FEATURE' }",
    );
  });

  it('the curl samples run as printed against the server (createAccount, createCart)', async () => {
    const missing = ['curl', 'openssl'].filter((tool) => {
      try {
        execFileSync(tool, [tool === 'curl' ? '--version' : 'version'], { stdio: 'ignore' });
        return false;
      } catch {
        return true;
      }
    });
    if (missing.length) return void console.warn(`SKIPPED: the curl samples need ${missing.join(' and ')}`);
    for (const id of ['createAccount', 'createCart']) {
      // The document names the configured public URL; this server listens on a port of its own.
      const source = (byId(id).op['x-codeSamples'][0]?.source ?? '').replace(
        doc.servers[0]?.url ?? '',
        baseUrl,
      );
      // Asynchronously: the server answering curl runs in this process.
      const { stdout } = await promisify(execFile)(
        'bash',
        ['-c', `${source} -s --max-time 20 -w '\\n%{http_code}'`],
        {
          env: { ...process.env, API_KEY: tenant.keys.commerce },
        },
      );
      const status = stdout.trim().split('\n').at(-1);
      expect(status, `${id}: ${stdout}`).toBe('201');
    }
  });
});
