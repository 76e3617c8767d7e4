import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/core/key-ring.js';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { linkedBillingAccount } from '../support/billing-fixtures.js';

// Issue 27, item 2: a genuine cursor with its timestamp set to year 0000, -000001 or +010000 was
// `500 internal` on /refunds, /payments, /accounts, /accounts/{id}/credits, /admin/intents and
// /audit-logs. Cursors are now signed by the key ring: every list (enumerated from the OpenAPI
// document, so a new list is covered without a change here) refuses a cursor it did not issue
// with 400 naming query.cursor, and genuine cursors still page.

type Doc = {
  paths: Record<string, Record<string, { operationId: string; parameters?: { name: string; in: string }[] }>>;
};
type ListRoute = { operationId: string; path: string };
type Page = {
  status: number;
  body: { data: unknown; meta?: { nextCursor: string | null }; details?: unknown };
};

/** The timestamps that were 500s, and a few more a hand-edited cursor could hold. */
const BAD_TIMESTAMPS = [
  '0000-01-01T00:00:00.000Z',
  '-000001-01-01T00:00:00.000Z',
  '+010000-01-01T00:00:00.000Z',
  '2024-02-30T00:00:00.000Z',
  '2024-01-01',
];
const decode = (cursor: string) => {
  const payload = cursor.slice(0, cursor.indexOf('.'));
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
};
const encode = (payload: unknown[]) => Buffer.from(JSON.stringify(payload)).toString('base64url');
const ISO = /^\d{4}-\d{2}-\d{2}T/;

/** Cursors an attacker can make from a genuine one without our key: each must be refused. */
function tamperedWithoutKey(genuine: string | undefined): Record<string, string> {
  const stranger = new KeyRing([{ id: 'test', key: randomBytes(32) }], 'test');
  const forged = encode([
    1,
    'orders',
    'x',
    '2024-01-01T00:00:00.000Z',
    '00000000-0000-4000-8000-000000000000',
  ]);
  const cases: Record<string, string> = {
    'garbage base64': '!!!not*base64~~',
    'plain text': 'not-a-cursor',
    'unsigned payload': forged,
    'signed by another key ring (same key id)': `${forged}.${stranger.mac('list_cursor', forged)}`,
    'empty signature': `${forged}.test.`,
  };
  if (!genuine) return cases;
  const [payload, keyId, mac] = genuine.split('.') as [string, string, string];
  cases.truncated = genuine.slice(0, Math.floor(genuine.length / 2));
  cases['signature cut short'] = genuine.slice(0, -4);
  cases['another key id'] = `${payload}.nokey.${mac}`;
  const position = decode(genuine);
  if (position.some((v) => typeof v === 'string' && ISO.test(v)))
    for (const ts of BAD_TIMESTAMPS) {
      const changed = position.map((v) => (typeof v === 'string' && ISO.test(v) ? ts : v));
      cases[`timestamp ${ts}, original signature`] = `${encode(changed)}.${keyId}.${mac}`;
    }
  return cases;
}

describe('list cursors are ours: signed, checked, and refused with 400 otherwise', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const ids: Record<string, string> = {};
  let lists: ListRoute[] = [];

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, key: string, payload?: object) =>
    api(t, key).send(method, url, payload);
  const get = async (url: string): Promise<Page> => {
    const res = await call('GET', url, tenant.keys.admin);
    return { status: res.statusCode, body: res.json() };
  };
  /** A list's URL with this tenant's real ids in its path (a new path parameter must be named here). */
  const urlOf = (route: ListRoute) =>
    route.path.replace('/api/v1', '').replace(/\{(\w+)\}/g, (_, name: string) => {
      const key = `${route.path.split('/{')[0]}/{${name}}`;
      const id = ids[key];
      if (!id) throw new Error(`${route.operationId}: no fixture for ${key}; add one to this test`);
      return id;
    });

  beforeAll(async () => {
    // Webhook targets are not resolved (no traffic leaves 127.0.0.1 in tests).
    t = await startApp({ config: { webhookAllowPrivateTargets: true } });
    tenant = await createTestTenant(t.deps);
    const { orgId, engine, billingId } = await linkedBillingAccount(t, tenant);
    // Two paid and refunded payments: payments, refunds and intents with a second page.
    for (const cents of [300, 400]) {
      const invoice = await engine.createInvoice({
        accountId: billingId,
        currency: 'USD',
        lines: [{ description: 'x', quantity: 1, unitAmountCents: cents }],
        idempotencyKey: `inv-${cents}`,
      });
      if (!invoice.ok) throw new Error('invoice');
      const payment = {
        accountId: billingId,
        amountCents: cents,
        currency: 'USD',
        invoiceId: invoice.value.id,
      };
      const session = (await call('POST', '/payments', tenant.keys.commerce, payment)).json().data.id;
      expect((await call('POST', `/payments/${session}/complete`, tenant.keys.commerce)).statusCode).toBe(
        200,
      );
      const refund = await call('POST', `/payments/${session}/refunds`, tenant.keys.commerce, {
        reason: 'other',
      });
      expect(refund.statusCode, refund.body).toBe(201);
    }
    expect((await call('POST', '/accounts', tenant.keys.commerce, { name: 'Second' })).statusCode).toBe(201);
    for (const amountCents of [100, 200]) {
      const granted = await call('POST', `/accounts/${orgId}/credits`, tenant.keys.admin, {
        amountCents,
        currency: 'USD',
        reason: 'goodwill',
      });
      expect(granted.statusCode, granted.body).toBe(201);
    }
    for (const name of ['a', 'b']) {
      const hook = await call('POST', '/webhooks', tenant.keys.commerce, {
        url: `https://127.0.0.1:9/${name}`,
        events: ['order.created'],
      });
      expect(hook.statusCode, hook.body).toBe(201);
      ids['/api/v1/webhooks/{id}'] = hook.json().data.id;
    }
    for (const totalCents of [100, 200]) await call('POST', '/orders', tenant.keys.commerce, { totalCents });
    // A content entry with two versions: listContentVersions has a second page.
    for (const title of ['Terms v1', 'Terms v2'])
      await api(t, tenant.keys.admin).put('/admin/content/terms', { title, body: 'x' });
    ids['/api/v1/admin/content/{key}'] = 'terms';
    ids['/api/v1/accounts/{id}'] = orgId;
    // A product whose content has two versions (listProductContentVersions).
    const product = await call('POST', '/admin/products', tenant.keys.admin, {
      name: 'Paged',
      type: 'one_time',
      currency: 'USD',
      entitlements: {},
      charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 100 }] }],
    });
    expect(product.statusCode, product.body).toBe(201);
    ids['/api/v1/admin/products/{id}'] = product.json().data.id;
    for (const title of ['One', 'Two'])
      await call('PUT', `/admin/products/${product.json().data.id}/content/en`, tenant.keys.admin, { title });
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Doc;
    lists = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(
          ([method, op]) =>
            method === 'get' && op.parameters?.some((p) => p.in === 'query' && p.name === 'cursor'),
        )
        .map(([, op]) => ({ operationId: op.operationId, path })),
    );
  });
  afterAll(() => t.app.close());

  it('finds the lists in the OpenAPI document, the six reported ones among them', () => {
    expect(lists.length).toBeGreaterThan(20);
    expect(lists.map((l) => l.operationId)).toEqual(
      expect.arrayContaining([
        'listRefunds',
        'listPaymentSessions',
        'listAccounts',
        'getAccountCredits',
        'listIntents',
        'listAuditLogs',
      ]),
    );
  });

  it('every list refuses a tampered, forged, truncated or garbage cursor with 400 naming query.cursor', async () => {
    const refusedBy: Record<string, number> = {};
    for (const route of lists) {
      const url = urlOf(route);
      const sep = url.includes('?') ? '&' : '?';
      const first = await get(`${url}${sep}limit=1`);
      expect(first.status, `${route.operationId} first page`).toBe(200);
      const genuine = first.body.meta?.nextCursor ?? undefined;
      for (const [name, cursor] of Object.entries(tamperedWithoutKey(genuine))) {
        const res = await get(`${url}${sep}limit=1&cursor=${encodeURIComponent(cursor)}`);
        expect(res.status, `${route.operationId}: ${name}`).toBe(400);
        expect(res.body, `${route.operationId}: ${name}`).toMatchObject({
          code: 'validation_failed',
          details: [{ field: 'query.cursor' }],
        });
        refusedBy[route.operationId] = (refusedBy[route.operationId] ?? 0) + 1;
      }
    }
    expect(Object.keys(refusedBy).sort()).toEqual(lists.map((l) => l.operationId).sort());
  });

  it('a cursor signed by our key but holding an out-of-range position is still refused (400, rule format)', async () => {
    let checked = 0;
    for (const route of lists) {
      const url = urlOf(route);
      const sep = url.includes('?') ? '&' : '?';
      const genuine = (await get(`${url}${sep}limit=1`)).body.meta?.nextCursor;
      if (!genuine || !decode(genuine).some((v) => typeof v === 'string' && ISO.test(v))) continue;
      for (const ts of BAD_TIMESTAMPS) {
        const payload = encode(decode(genuine).map((v) => (typeof v === 'string' && ISO.test(v) ? ts : v)));
        const cursor = `${payload}.${t.deps.keyRing.mac('list_cursor', payload)}`;
        const res = await get(`${url}${sep}limit=1&cursor=${encodeURIComponent(cursor)}`);
        expect(res.status, `${route.operationId}: ${ts}`).toBe(400);
        expect(res.body).toMatchObject({ details: [{ field: 'query.cursor', rule: 'format' }] });
      }
      checked++;
    }
    // The six lists reported at least (keyed by creation time).
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it('genuine cursors still page every list that has a second page: the next page starts after the first', async () => {
    const paged: string[] = [];
    for (const route of lists) {
      const url = urlOf(route);
      const sep = url.includes('?') ? '&' : '?';
      const whole = (await get(`${url}${sep}limit=200`)).body.data;
      const first = await get(`${url}${sep}limit=1`);
      const cursor = first.body.meta?.nextCursor;
      if (!cursor) continue;
      const second = await get(`${url}${sep}limit=1&cursor=${encodeURIComponent(cursor)}`);
      expect(second.status, route.operationId).toBe(200);
      const items = (body: Page['body']) =>
        Array.isArray(body.data) ? body.data : (body.data as { entries: unknown[] }).entries;
      const all = items({ data: whole });
      expect([...items(first.body), ...items(second.body)], route.operationId).toEqual(all.slice(0, 2));
      paged.push(route.operationId);
    }
    expect(paged).toEqual(
      expect.arrayContaining([
        'listRefunds',
        'listPaymentSessions',
        'listAccounts',
        'getAccountCredits',
        'listIntents',
        'listAuditLogs',
        'listOrders',
      ]),
    );
  });

  it('a cursor of one list is refused by another, and of one tenant by another', async () => {
    const other = await createTestTenant(t.deps);
    const cursor = (await get('/accounts?limit=1')).body.meta?.nextCursor as string;
    const elsewhere = await get(`/audit-logs?limit=1&cursor=${cursor}`);
    expect(elsewhere.body).toMatchObject({ details: [{ field: 'query.cursor', rule: 'list' }] });
    const foreign = await t.app.inject({
      method: 'GET',
      url: `/api/v1/accounts?limit=1&cursor=${cursor}`,
      headers: bearer(other.keys.read),
    });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ details: [{ field: 'query.cursor', rule: 'tenant' }] });
  });
});
