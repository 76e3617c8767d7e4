import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TOTAL_CENTS } from '../../src/core/money.js';
import { INT4_MAX } from '../../src/core/schema.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';

// Issue 27, item 12: `usageLimit` of 2^31 was a 500 (an int4 column, no maximum in the schema).
// Every number a request carries is bounded in the served document, and the server refuses the
// bound + 1 with 400 naming the field. The requests are generated from the document.

type Schema = Record<string, unknown>;
type Parameter = { name: string; in: string; schema?: Schema };
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

const isNumeric = (s: Schema) => [s.type].flat().some((t) => t === 'integer' || t === 'number');

/** Every numeric schema under `schema`, with its path (`items[]`, `{}` for record values). */
function numbersIn(doc: Doc, schema: Schema | undefined, where: string): { where: string; schema: Schema }[] {
  if (!schema) return [];
  const ref = schema.$ref as string | undefined;
  const s = ref ? (doc.components.schemas[ref.split('/').pop() ?? ''] ?? {}) : schema;
  const out = isNumeric(s) ? [{ where, schema: s }] : [];
  for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>))
    out.push(...numbersIn(doc, v, `${where}.${k}`));
  if (s.items) out.push(...numbersIn(doc, s.items as Schema, `${where}[]`));
  if (s.additionalProperties && typeof s.additionalProperties === 'object')
    out.push(...numbersIn(doc, s.additionalProperties as Schema, `${where}{}`));
  // `if`/`then` parts (core/schema.ts `When`) only narrow a field whose own schema bounds it.
  for (const key of ['anyOf', 'oneOf'])
    for (const branch of (s[key] ?? []) as Schema[]) out.push(...numbersIn(doc, branch, where));
  return out;
}

/**
 * Body fields reachable through object properties alone (top level and nested objects), with the
 * integer schema each may take (a `[integer, null]` union counts).
 */
function integerFields(
  doc: Doc,
  schema: Schema | undefined,
  path: string[] = [],
): { path: string[]; max: number }[] {
  if (!schema) return [];
  const ref = schema.$ref as string | undefined;
  const s = ref ? (doc.components.schemas[ref.split('/').pop() ?? ''] ?? {}) : schema;
  const branches = [s, ...((s.anyOf ?? s.oneOf ?? []) as Schema[])];
  const integer = branches.find((b) => [b.type].flat().includes('integer'));
  if (integer && path.length) return [{ path, max: integer.maximum as number }];
  const object = branches.find((b) => b.type === 'object' && b.properties);
  if (!object) return [];
  return Object.entries(object.properties as Record<string, Schema>).flatMap(([k, v]) =>
    integerFields(doc, v, [...path, k]),
  );
}

function bodyWith(path: string[], value: unknown): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  let at = body;
  path.forEach((key, i) => {
    if (i === path.length - 1) at[key] = value;
    else {
      at[key] = {};
      at = at[key] as Record<string, unknown>;
    }
  });
  return body;
}

/** A value each path parameter's schema accepts (ids are UUIDs; nothing needs to exist). */
function pathParamValue(schema: Schema | undefined): string {
  if (Array.isArray(schema?.enum)) return String(schema.enum[0]);
  if (typeof schema?.pattern === 'string' && !schema.pattern.includes('[0-9a-f]{8}')) return 'x';
  return randomUUID();
}

describe('request numbers are bounded by what stores them (issue 27, item 12)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let doc: Doc;

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  });
  afterAll(() => t.app.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );

  it('every number in every request parameter and body has a minimum and a maximum a column holds', () => {
    const unbounded: string[] = [];
    let checked = 0;
    for (const { path, method, op } of operations()) {
      const found = [
        ...(op.parameters ?? []).flatMap((p) => numbersIn(doc, p.schema, `${p.in}.${p.name}`)),
        ...numbersIn(doc, op.requestBody?.content['application/json']?.schema, 'body'),
      ];
      for (const { where, schema } of found) {
        checked += 1;
        const max = schema.maximum as number | undefined;
        const min = schema.minimum as number | undefined;
        const integer = [schema.type].flat().includes('integer');
        // A bigint money column takes up to MAX_TOTAL_CENTS; every other integer is int4 or tighter.
        const ceiling = where.endsWith('Cents') ? MAX_TOTAL_CENTS : INT4_MAX;
        if (max === undefined || min === undefined || (integer && (max > ceiling || min < -ceiling - 1)))
          unbounded.push(`${method} ${path} ${where} [${min}, ${max}]`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(unbounded).toEqual([]);
  });

  it('refuses each body integer field at its maximum + 1 with 400 naming the field, for every write', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const { path, method, op } of operations()) {
      if (!['POST', 'PATCH', 'PUT'].includes(method)) continue;
      const fields = integerFields(doc, op.requestBody?.content['application/json']?.schema);
      let url = path;
      for (const p of op.parameters ?? [])
        if (p.in === 'path') url = url.replace(`{${p.name}}`, pathParamValue(p.schema));
      for (const { path: field, max } of fields) {
        const name = field.join('.');
        if (typeof max !== 'number') {
          failures.push(`${method} ${path} ${name}: no maximum`);
          continue;
        }
        const res = await t.app.inject({
          method,
          url,
          headers: bearer(tenant.keys.admin),
          payload: bodyWith(field, max + 1),
        });
        sent += 1;
        const body = errorBody(res);
        const named = body.details?.some((d) => d.field === name && d.rule === 'maximum');
        if (res.statusCode !== 400 || body.code !== 'validation_failed' || !named)
          failures.push(`${method} ${path} ${name}=${max + 1}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    expect(sent).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  });

  it('takes a promotion usageLimit at the int4 maximum and refuses 2^31 on create and update', async () => {
    const headers = bearer(tenant.keys.admin);
    const promotion = (usageLimit: number, code: string) => ({
      code,
      name: 'Bound',
      discountType: 'percent',
      percentOff: 10,
      usageLimit,
    });
    const over = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/promotions',
      headers,
      payload: promotion(2 ** 31, 'OVER'),
    });
    expect(over.statusCode).toBe(400);
    expect(errorBody(over).details).toContainEqual(
      expect.objectContaining({ field: 'usageLimit', rule: 'maximum' }),
    );
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/admin/promotions', headers });
    expect(list.json().data).toEqual([]);

    const atMax = await t.app.inject({
      method: 'POST',
      url: '/api/v1/admin/promotions',
      headers,
      payload: promotion(INT4_MAX, 'ATMAX'),
    });
    expect(atMax.statusCode).toBe(201);
    expect(atMax.json().data.usageLimit).toBe(INT4_MAX);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/promotions/${atMax.json().data.id}`,
      headers,
      payload: { usageLimit: 2 ** 31 },
    });
    expect(patch.statusCode).toBe(400);
    expect(errorBody(patch).details).toContainEqual(
      expect.objectContaining({ field: 'usageLimit', rule: 'maximum' }),
    );
  });
});
