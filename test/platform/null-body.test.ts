import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carts } from '../../src/modules/carts/tables.js';
import { paymentMethods } from '../../src/modules/payment-methods/tables.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';

// Issue 27, item 13 (found by Schemathesis): a JSON `null` body was taken as `{}` on every route
// whose body fields are all optional: POST /carts and POST /orders created, PATCH /accounts/{id}
// answered 200, POST /payment-methods created a card "0000". A body typed `object` refuses
// `null` with 400 naming `body`, and nothing is written.

type Schema = { type?: string; format?: string; enum?: string[]; $ref?: string };
type Op = {
  operationId: string;
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
};
type Doc = { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, Schema> } };

/** A value the path parameter's schema accepts, so validation reaches the body. */
const pathValue = (schema: Schema) => schema.enum?.[0] ?? (schema.format === 'uuid' ? randomUUID() : 'abc');

describe('a JSON null body is not an object', () => {
  let t: TestApp;
  let tenant: TestTenant;

  const send = (method: string, url: string, key = tenant.keys.admin) =>
    t.app.inject({
      method: method as 'POST',
      url: `/api/v1${url}`,
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: 'null',
    });
  const count = async (url: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1${url}`,
      headers: bearer(tenant.keys.admin),
    });
    return (res.json().data as unknown[]).length;
  };
  /** Rows of `table` this tenant has (carts and payment methods have no list of their own). */
  const rows = async (table: typeof carts | typeof paymentMethods) => {
    const [row] = await t.deps.db
      .select({ n: sql<number>`count(*)::int` })
      .from(table)
      .where(eq(table.tenantId, tenant.tenantId));
    return row?.n;
  };
  const expectNullRefused = (res: Awaited<ReturnType<typeof send>>, what: string) => {
    expect(res.statusCode, `${what}: ${res.body}`).toBe(400);
    expect(errorBody(res), what).toMatchObject({
      code: 'validation_failed',
      details: [expect.objectContaining({ field: 'body', rule: 'type' })],
    });
  };

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  it('POST /carts, POST /orders, PATCH /accounts/{id} and POST /payment-methods refuse null and write nothing', async () => {
    const account = await t.app.inject({
      method: 'POST',
      url: '/api/v1/accounts',
      headers: bearer(tenant.keys.commerce),
      payload: { name: 'Acme' },
    });
    const accountId = account.json().data.id as string;
    const before = { orders: await count('/orders'), audit: await count('/audit-logs') };
    expectNullRefused(await send('POST', '/carts', tenant.keys.commerce), 'POST /carts');
    expectNullRefused(await send('POST', '/orders', tenant.keys.commerce), 'POST /orders');
    expectNullRefused(await send('PATCH', `/accounts/${accountId}`, tenant.keys.commerce), 'PATCH /accounts');
    expectNullRefused(await send('POST', '/payment-methods', tenant.keys.commerce), 'POST /payment-methods');
    expect(await count('/orders')).toBe(before.orders);
    expect(await rows(carts)).toBe(0);
    expect(await rows(paymentMethods)).toBe(0);
    expect(await count('/audit-logs')).toBe(before.audit);
    // An absent body is still `{}` where every field is optional.
    const absent = await t.app.inject({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(tenant.keys.commerce),
    });
    expect(absent.statusCode).toBe(201);
  });

  it('every route whose body is an object refuses null with 400 naming body', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Doc;
    const checked: string[] = [];
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        const ref = op.requestBody?.content['application/json']?.schema;
        const body = ref?.$ref ? doc.components.schemas[ref.$ref.split('/').pop() as string] : ref;
        if (body?.type !== 'object') continue;
        const url = path
          .replace('/api/v1', '')
          .replace(/\{(\w+)\}/g, (_, name: string) =>
            pathValue(op.parameters?.find((p) => p.in === 'path' && p.name === name)?.schema ?? {}),
          );
        expectNullRefused(await send(method.toUpperCase(), url), `${method.toUpperCase()} ${path}`);
        checked.push(op.operationId);
      }
    expect(checked).toEqual(
      expect.arrayContaining(['createCart', 'createOrder', 'updateAccount', 'createPaymentMethod']),
    );
    expect(checked.length).toBeGreaterThan(40);
  });
});
