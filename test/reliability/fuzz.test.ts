import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '../../src/modules/api-keys/index.js';
import { createTestTenant, startApp, type TestApp } from '../harness.js';
import {
  anyJson,
  boundaryInteger,
  hostileString,
  invalid,
  type SchemaContext,
  valid,
} from './support/arbitraries.js';

const isIntegerParam = (schema: { type?: unknown }) => schema.type === 'integer' || schema.type === 'number';

import { fetchDocument, fillPath, type OpenApiDoc, type Operation, operations } from './support/openapi.js';
import { buildWorld, injectCall, type World } from './support/world.js';

// Fuzzing from the OpenAPI document: requests for every operation, valid and invalid, with real
// ids of the caller's tenant, over many keys and client addresses (so rate limits do not mask
// anything). Checks: no 5xx (502 only where documented), every 4xx has the error body, every 2xx
// matches its documented response schema, and the server still answers afterwards.

const SMOKE = process.env.RELIABILITY_SMOKE === '1';
const RUNS = Number(process.env.FUZZ_RUNS ?? (SMOKE ? 2_000 : 20_000));
const FIXED_SEED = 20_261_121;
const RANDOM_SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const TENANTS = 3;
const KEYS_PER_TENANT = 4;

interface FuzzRequest {
  tenant: number;
  key: number;
  auth: 'admin' | 'read' | 'none' | 'junk';
  method: string;
  operationId: string;
  url: string;
  body?: unknown;
  rawBody?: string;
  headers: Record<string, string>;
  ip: string;
}

interface Finding {
  kind: string;
  request: string;
  status: number;
  response: string;
}

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);

/**
 * A list cursor an attacker makes (issue 27: a genuine cursor with its timestamp set to year 0000,
 * -000001 or +010000 was a 500): a forged position, unsigned or with a made-up signature.
 */
const tamperedCursor = fc
  .tuple(
    fc.constantFrom(
      '0000-01-01T00:00:00.000Z',
      '-000001-01-01T00:00:00.000Z',
      '+010000-01-01T00:00:00.000Z',
      2 ** 63,
    ),
    fc.uuid(),
    fc.constantFrom('', '.test.', `.test.${'A'.repeat(43)}`, '.nokey.AAAA'),
  )
  .map(
    ([position, id, signature]) =>
      Buffer.from(JSON.stringify([1, 'orders', 'x', position, id])).toString('base64url') + signature,
  );

function requestArb(op: Operation, ctx: SchemaContext, tenant: number): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const pathArb = fc.tuple(
    ...pathParams.map((p) =>
      fc.oneof(
        { weight: 6, arbitrary: valid(p.schema, ctx).map(String) },
        // `.` and `..` are dot-segments, removed when the URL is resolved (RFC 3986, 5.2.4): the
        // request then names another resource (GET /accounts/. is GET /accounts/), so they are
        // not values of the parameter (found by a random seed: the list answered, rightly).
        { weight: 1, arbitrary: hostileString.filter((s) => s.length > 0 && s !== '.' && s !== '..') },
      ),
    ),
  );
  const queryArb = fc.tuple(
    ...queryParams.map((p) =>
      fc.oneof(
        { weight: 4, arbitrary: valid(p.schema, ctx).map((v) => (v === null ? undefined : String(v))) },
        { weight: 1, arbitrary: hostileString },
        // Integer parameters (limits, pages) at the storage and arithmetic boundaries.
        ...(isIntegerParam(p.schema) ? [{ weight: 2, arbitrary: boundaryInteger.map(String) }] : []),
        ...(p.name === 'cursor' ? [{ weight: 3, arbitrary: tamperedCursor }] : []),
        { weight: p.required ? 1 : 4, arbitrary: fc.constant(undefined) },
      ),
    ),
  );
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const bodyArb: fc.Arbitrary<{ body?: unknown; rawBody?: string }> = bodySchema
    ? fc.oneof(
        { weight: 7, arbitrary: valid(bodySchema, ctx).map((body) => ({ body })) },
        { weight: 4, arbitrary: invalid(bodySchema, ctx).map((body) => ({ body })) },
        {
          weight: 1,
          arbitrary: fc
            .oneof(fc.string(), fc.constantFrom('{', '{"a":', '[1,2', 'nul', '{"__proto__":{"x":1}}'))
            .map((rawBody) => ({ rawBody })),
        },
      )
    : fc.oneof(
        { weight: 9, arbitrary: fc.constant({}) },
        { weight: 1, arbitrary: anyJson.map((body) => ({ body })) },
      );
  return fc
    .record({
      key: fc.integer({ min: 0, max: KEYS_PER_TENANT - 1 }),
      auth: fc.oneof(
        { weight: 40, arbitrary: fc.constant('admin' as const) },
        { weight: 3, arbitrary: fc.constant('read' as const) },
        { weight: 1, arbitrary: fc.constant('none' as const) },
        { weight: 1, arbitrary: fc.constant('junk' as const) },
      ),
      path: pathArb,
      query: queryArb,
      body: bodyArb,
      idempotencyKey: fc.option(fc.oneof(fc.uuid(), hostileString), { freq: 5 }),
      ip: fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `10.${a}.${b}.${c}`),
    })
    .map((r) => {
      const values = Object.fromEntries(pathParams.map((p, i) => [p.name, r.path[i] as string]));
      const qs = new URLSearchParams();
      queryParams.forEach((p, i) => {
        const v = r.query[i];
        if (v !== undefined) qs.set(p.name, v);
      });
      const query = qs.toString();
      const headers: Record<string, string> = {};
      if (r.idempotencyKey !== null && op.method !== 'GET') headers['idempotency-key'] = r.idempotencyKey;
      return {
        tenant,
        key: r.key,
        auth: r.auth,
        method: op.method,
        operationId: op.operationId,
        url: `${fillPath(op.path, values)}${query ? `?${query}` : ''}`,
        ...r.body,
        headers,
        ip: r.ip,
      };
    });
}

describe('fuzzing from the OpenAPI document', () => {
  let t: TestApp;
  let doc: OpenApiDoc;
  let ops: Operation[];
  const worlds: World[] = [];
  const keys: { admin: string[]; read: string }[] = [];
  const validators = new Map<string, ValidateFunction | null>();

  beforeAll(async () => {
    t = await startApp({ config: { webhookAllowPrivateTargets: true } });
    const call = injectCall(t);
    doc = await fetchDocument(call);
    ops = operations(doc);
    for (let i = 0; i < TENANTS; i++) {
      const tenant = await createTestTenant(t.deps);
      worlds.push(await buildWorld(call, tenant.keys, `https://localhost:9/t${i}`));
      const admin = [tenant.keys.admin];
      for (let k = 1; k < KEYS_PER_TENANT; k++) {
        const issued = await issueApiKey(t.deps.db, tenant.tenantId, {
          name: `fuzz ${k}`,
          scopes: ['admin'],
          rateTier: 'unlimited',
          environment: t.deps.config.appEnv,
        });
        admin.push(issued.secret);
      }
      keys.push({ admin, read: tenant.keys.read });
    }
  }, 180_000);
  afterAll(() => t.app.close());

  function responseValidator(op: Operation, status: number): ValidateFunction | null {
    const id = `${op.operationId} ${status}`;
    if (!validators.has(id)) {
      const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
      validators.set(id, schema ? ajv.compile({ ...schema, components: doc.components }) : null);
    }
    return validators.get(id) ?? null;
  }

  function check(op: Operation, req: FuzzRequest, status: number, body: string): Finding | undefined {
    const finding = (kind: string): Finding => ({
      kind,
      request: `${req.method} ${req.url.slice(0, 200)} ${JSON.stringify(req.body ?? req.rawBody ?? null)?.slice(0, 300)} headers ${JSON.stringify(req.headers).slice(0, 200)} auth ${req.auth}`,
      status,
      response: body.slice(0, 400),
    });
    // The one success that is not JSON but JSON Lines (the ACP product feed): every line JSON.
    if (status < 300 && op.responses[String(status)]?.content?.['application/x-ndjson']) {
      const lines = body === '' ? [] : body.endsWith('\n') ? body.slice(0, -1).split('\n') : [''];
      try {
        for (const line of lines) JSON.parse(line);
      } catch {
        return finding('a JSON Lines response with a line that is not JSON (or no final newline)');
      }
      return undefined;
    }
    let json: any;
    try {
      json = body.length > 0 ? JSON.parse(body) : undefined;
    } catch {
      return finding('response is not JSON');
    }
    if (status >= 500) {
      const documented502 =
        status === 502 &&
        '502' in op.responses &&
        ['billing_unavailable', 'quote_unavailable'].includes(json?.code);
      if (!documented502) return finding(`${status} ${json?.code}`);
    }
    if (status >= 400) {
      const ok =
        typeof json?.error === 'string' &&
        typeof json?.code === 'string' &&
        typeof json?.requestId === 'string' &&
        (json.details === undefined ||
          (Array.isArray(json.details) && json.details.every((d: any) => typeof d?.message === 'string')));
      if (!ok) return finding(`${status} without the error body`);
      if (!(String(status) in op.responses) && status !== 404 && status !== 405)
        return finding(`${status} not documented for ${op.operationId}`);
      return undefined;
    }
    if (status === 204) return body === '' ? undefined : finding('204 with a body');
    const validate = responseValidator(op, status);
    if (!validate) return String(status) in op.responses ? undefined : finding(`${status} not documented`);
    if (!validate(json))
      return finding(`${status} does not match its schema: ${ajv.errorsText(validate.errors)}`);
    return undefined;
  }

  async function run(seed: number, runs: number) {
    const byId = new Map(ops.map((o) => [o.operationId, o]));
    const ctxs = worlds.map((w) => ({
      components: doc.components.schemas as Record<string, any>,
      ids: Object.entries(w).flatMap(([k, v]) => (k === 'promotionCode' ? [] : [v])),
    }));
    const arb = fc
      .integer({ min: 0, max: TENANTS - 1 })
      .chain((tenant) =>
        fc.constantFrom(...ops).chain((op) => requestArb(op, ctxs[tenant] as SchemaContext, tenant)),
      );
    const findings: Finding[] = [];
    const statuses = new Map<number, number>();
    const CHUNK = 250;
    for (let done = 0; done < runs; done += CHUNK) {
      const batch = fc.sample(arb, { seed: seed + done, numRuns: Math.min(CHUNK, runs - done) });
      for (const req of batch) {
        const op = byId.get(req.operationId) as Operation;
        const key =
          req.auth === 'admin'
            ? keys[req.tenant]?.admin[req.key]
            : req.auth === 'read'
              ? keys[req.tenant]?.read
              : req.auth === 'junk'
                ? 'cak_test_notarealkey'
                : undefined;
        const headers: Record<string, string> = { ...req.headers };
        if (key) headers.authorization = `Bearer ${key}`;
        let payload: string | undefined;
        if (req.rawBody !== undefined) payload = req.rawBody;
        else if (req.body !== undefined) payload = JSON.stringify(req.body);
        if (payload !== undefined) headers['content-type'] = 'application/json';
        const res = await t.app.inject({
          method: req.method as 'GET',
          url: req.url,
          headers,
          remoteAddress: req.ip,
          ...(payload !== undefined ? { payload } : {}),
        });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        const f = check(op, req, res.statusCode, res.body);
        if (f) findings.push(f);
      }
    }
    return { findings, statuses };
  }

  const report = (seed: number, r: Awaited<ReturnType<typeof run>>) => {
    const statuses = [...r.statuses.entries()].sort((a, b) => a[0] - b[0]);
    console.log(
      `fuzz seed ${seed}: ${RUNS / 2} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    // One example per kind keeps a failure readable.
    const kinds = new Map<string, Finding>();
    for (const f of r.findings) if (!kinds.has(f.kind)) kinds.set(f.kind, f);
    return [...kinds.values()];
  };

  it(`${RUNS / 2} requests with the fixed seed ${FIXED_SEED}`, async () => {
    const r = await run(FIXED_SEED, RUNS / 2);
    expect(report(FIXED_SEED, r)).toEqual([]);
    expect(r.statuses.get(200) ?? 0).toBeGreaterThan(RUNS / 40);
  }, 1_800_000);

  it(`${RUNS / 2} requests with a random seed (FUZZ_SEED=${RANDOM_SEED} repeats it)`, async () => {
    console.log(`fuzz random seed: FUZZ_SEED=${RANDOM_SEED}`);
    const r = await run(RANDOM_SEED, RUNS / 2);
    expect(report(RANDOM_SEED, r)).toEqual([]);
  }, 1_800_000);

  it('the server still answers normally afterwards', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/orders',
      headers: { authorization: `Bearer ${keys[0]?.admin[0]}` },
    });
    expect(res.statusCode).toBe(200);
  });
});
