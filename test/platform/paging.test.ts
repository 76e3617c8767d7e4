import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost, perSeat } from '../support/catalog-fixtures.js';

// Cursor paging on every list: `limit` (1-200) and `cursor`; with `limit` a page, `meta` and a
// `next` action; without it the whole list as before. Keyset cursors: stable under inserts,
// bound to the tenant and the list.

type Action = { rel: string; operationId?: string; arguments?: Record<string, unknown>; href: string };
type ListBody = {
  data: { id: string }[];
  nextActions: Action[];
  meta?: { limit: number; nextCursor: string | null };
};

describe('cursor paging', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;

  const get = async (url: string, key = tenant.keys.read) => {
    const res = await api(t, key).get(url);
    return { status: res.statusCode, body: res.json() as ListBody };
  };
  const createOrder = async (key = tenant.keys.commerce) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(key),
      payload: { totalCents: 100 },
    });
    expect(res.statusCode).toBe(201);
    return res.json().data.id as string;
  };
  /** Follows `next` actions from a first page to the end, as an agent would. */
  const walk = async (first: string, between?: () => Promise<void>) => {
    const seen: string[] = [];
    let page = await get(first);
    for (;;) {
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((o) => o.id));
      const next = page.body.nextActions.find((a) => a.rel === 'next');
      expect(Boolean(next)).toBe(page.body.meta?.nextCursor !== null);
      if (!next) break;
      expect(next.arguments).toMatchObject({
        cursor: page.body.meta?.nextCursor,
        limit: page.body.meta?.limit,
      });
      await between?.();
      page = await get(next.href.replace('/api/v1', ''));
    }
    return seen;
  };

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    other = await createTestTenant(t.deps);
    for (let i = 0; i < 7; i++) await createOrder();
    await createOrder(other.keys.commerce);
  });
  afterAll(() => t.app.close());

  it('pages through a list in its order, each row once, and the whole list is unchanged without limit', async () => {
    // The whole list is streamed (a batch at a time) yet the same envelope, actions completed.
    const whole = await get('/orders');
    expect(whole.body).not.toHaveProperty('meta');
    expect(whole.body.nextActions).toEqual([
      expect.objectContaining({ rel: 'createOrder', operationId: 'createOrder' }),
    ]);
    const all = whole.body.data.map((o) => o.id);
    expect(all).toHaveLength(7);
    const first = await get('/orders?limit=3');
    expect(first.body.meta).toEqual({ limit: 3, nextCursor: expect.any(String) });
    expect(first.body.data.map((o) => o.id)).toEqual(all.slice(0, 3));
    const next = first.body.nextActions.find((a) => a.rel === 'next');
    expect(next).toMatchObject({ operationId: 'listOrders', arguments: { limit: 3 } });
    expect(await walk('/orders?limit=3')).toEqual(all);
    // The last page says so.
    const last = await get('/orders?limit=7');
    expect(last.body.meta?.nextCursor).toBeNull();
    expect(last.body.nextActions.map((a) => a.rel)).not.toContain('next');
  });

  it('streams a whole list longer than one read batch: every order once, newest first', async () => {
    const big = await createTestTenant(t.deps);
    await t.deps.db.execute(sql`
      insert into orders (tenant_id, id, status, items, total_cents, currency, customer_context, discount_cents,
        created_at, updated_at)
      select ${big.tenantId}::uuid, gen_random_uuid(), 'draft', '[]'::jsonb, n, 'USD', '{}'::jsonb, 0, now(), now()
      from generate_series(1, 2345) as n`);
    const res = await get('/orders', big.keys.read);
    expect(res.status).toBe(200);
    const totals = (res.body.data as unknown as { totalCents: number }[]).map((o) => o.totalCents);
    // Inserted in one statement in order 1..2345, so newest first (by order number) is 2345..1.
    expect(totals).toEqual(Array.from({ length: 2345 }, (_, i) => 2345 - i));
  });

  it('is stable under inserts: orders created while paging neither repeat nor shift the pages', async () => {
    const before = (await get('/orders')).body.data.map((o) => o.id);
    const seen = await walk('/orders?limit=2', async () => {
      await createOrder();
    });
    expect(seen).toEqual(before);
  });

  it('keeps the filters on the next page', async () => {
    const res = await get('/orders?status=draft&limit=1');
    const next = res.body.nextActions.find((a) => a.rel === 'next');
    expect(next?.arguments).toMatchObject({ status: 'draft', limit: 1 });
    expect(next?.href).toContain('status=draft');
  });

  it('refuses bad paging input with 400 naming the argument', async () => {
    const cursor = (await get('/orders?limit=1')).body.meta?.nextCursor as string;
    const foreign = await get(`/orders?limit=1&cursor=${cursor}`, other.keys.read);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'query.cursor', argument: 'cursor', rule: 'tenant' }],
    });
    const otherList = await get(`/payments?limit=1&cursor=${cursor}`);
    expect(otherList.body).toMatchObject({ details: [{ field: 'query.cursor', rule: 'list' }] });
    for (const [query, rule] of [
      [`cursor=${cursor}`, 'limit'],
      ['limit=1&cursor=not-a-cursor', 'signature'],
      // Unsigned (a cursor as this API wrote them before they were signed): not ours.
      [`limit=1&cursor=${Buffer.from('[1,"orders","x",1]').toString('base64url')}`, 'signature'],
      ['limit=0', 'minimum'],
      ['limit=201', 'maximum'],
    ] as const) {
      const res = await get(`/orders?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ code: 'validation_failed', details: [{ rule }] });
    }
  });

  it('pages lists held in memory by the last item shown; a cursor whose item is gone is refused', async () => {
    for (const name of ['A', 'B', 'C']) await adminPost(t, tenant, 'products', perSeat(`Plan ${name}`, 100));
    const adminGet = (url: string) => get(url, tenant.keys.admin);
    const whole = (await adminGet('/admin/products')).body.data.map((p) => p.id);
    const first = await adminGet('/admin/products?limit=2');
    expect(first.body.data.map((p) => p.id)).toEqual(whole.slice(0, 2));
    // A product added meanwhile (first in the list) does not shift the next page.
    await adminPost(t, tenant, 'products', perSeat('Plan D', 100));
    const second = await adminGet(`/admin/products?limit=2&cursor=${first.body.meta?.nextCursor}`);
    expect(second.body.data.map((p) => p.id)).toEqual(whole.slice(2, 4));
    const anchor = first.body.data[1]?.id;
    await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/admin/products/${anchor}`,
      headers: bearer(tenant.keys.admin),
    });
    const stale = await adminGet(`/admin/products?limit=2&cursor=${first.body.meta?.nextCursor}`);
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ details: [{ field: 'query.cursor', rule: 'stale' }] });
  });

  it('every list operation takes limit and cursor', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            parameters?: { name: string; in: string }[];
            responses: Record<
              string,
              { content?: Record<string, { schema: { properties?: { data?: { type?: string } } } }> }
            >;
          }
        >
      >;
    };
    const lists: string[] = [];
    for (const item of Object.values(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        const data = op.responses['200']?.content?.['application/json']?.schema.properties?.data;
        if (method !== 'get' || data?.type !== 'array') continue;
        lists.push(op.operationId);
        const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        expect(query, op.operationId).toEqual(expect.arrayContaining(['limit', 'cursor']));
      }
    expect(lists.length).toBeGreaterThan(20);
  });
});
