import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../src/events/outbox.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api, type Method } from '../support/api.js';
import { adminPost, perSeat } from '../support/catalog-fixtures.js';

// Key/value tags on accounts, orders, subscriptions and payment sessions: PUT/DELETE
// /{resource}/{id}/tags/{key}, `tags` on every presentation, and the `tag=key:value` list filter.

type Json = Record<string, unknown>;
type Resource = Json & { id: string; tags: Record<string, string>; updatedAt: string };
interface AuditEntry {
  action: string;
  resourceType: string;
  resourceId: string;
  details: Json | null;
}

interface Kind {
  path: string;
  /** The audit action prefix and resourceType. */
  audit: string;
  resourceType: string;
  /** The event emitted with the resource on a tag change, if any. */
  event: 'account.updated' | 'order.updated' | null;
}

const KINDS: Kind[] = [
  { path: 'accounts', audit: 'account', resourceType: 'account', event: 'account.updated' },
  { path: 'orders', audit: 'order', resourceType: 'order', event: 'order.updated' },
  { path: 'subscriptions', audit: 'subscription', resourceType: 'subscription', event: null },
  { path: 'payments', audit: 'payment', resourceType: 'payment_session', event: null },
];

const UNKNOWN_ID = '01900000-0000-7000-8000-000000000999';

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let planId: string;
let otherPlanId: string;
let orgId: string;

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  planId = (await adminPost(t, tenant, 'products', perSeat('Starter', 1000))).id;
  otherPlanId = (await adminPost(t, other, 'products', perSeat('Starter', 1000))).id;
});
afterAll(() => t.app.close());

const call = (
  method: string,
  path: string,
  key: string,
  payload?: object,
  headers: Record<string, string> = {},
) => api(t, key).send(method as Method, path, payload, { headers });

/** A new resource of `kind`, as its create answers it. */
async function create(kind: Kind, who: TestTenant = tenant): Promise<Resource> {
  const key = who.keys.commerce;
  let res: Awaited<ReturnType<typeof call>>;
  if (kind.path === 'accounts') res = await call('POST', '/accounts', key, { name: 'Initech' });
  else if (kind.path === 'orders') res = await call('POST', '/orders', key, { totalCents: 100 });
  else if (kind.path === 'payments')
    res = await call('POST', '/payments', key, { accountId: 'acct_1', amountCents: 500, currency: 'USD' });
  else {
    if (who === tenant && !orgId)
      orgId = (await call('POST', '/accounts', key, { name: 'Subscriber' })).json().data.id;
    const owner =
      who === tenant ? orgId : (await call('POST', '/accounts', key, { name: 'Other' })).json().data.id;
    const productId = who === tenant ? planId : otherPlanId;
    res = await call('POST', '/subscriptions', key, { productId, organizationId: owner });
  }
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

const put = (kind: Kind, id: string, tagKey: string, value: unknown, key = tenant.keys.commerce) =>
  call('PUT', `/${kind.path}/${id}/tags/${tagKey}`, key, { value });
const del = (kind: Kind, id: string, tagKey: string, key = tenant.keys.commerce) =>
  call('DELETE', `/${kind.path}/${id}/tags/${tagKey}`, key);
const read = async (kind: Kind, id: string): Promise<Resource> => {
  const res = await call('GET', `/${kind.path}/${id}`, tenant.keys.read);
  expect(res.statusCode).toBe(200);
  return res.json().data;
};
const audits = async (id: string) =>
  (
    await call('GET', `/audit-logs?resourceId=${id}&action=tag_&sort=createdAt&limit=200`, tenant.keys.admin)
  ).json().data as AuditEntry[];
const eventCount = async (kind: Kind, id: string) =>
  kind.event
    ? (await listEvents(t.deps.db, tenant.tenantId, kind.event)).filter(
        (e) => (e.payload as { id: string }).id === id,
      ).length
    : (await listEvents(t.deps.db, tenant.tenantId)).length;

describe.each(KINDS)('tags: $path', (kind) => {
  it('sets, replaces and deletes tags: 200 with the whole resource, read back, audited', async () => {
    // An order's create answer also has `rulesApplied` (create only).
    const { rulesApplied: _r, ...created } = await create(kind);
    expect(created.tags).toEqual({});
    const eventsBefore = await eventCount(kind, created.id);

    const set = await put(kind, created.id, 'tier', 'gold');
    expect(set.statusCode, set.body).toBe(200);
    const afterSet = set.json().data as Resource;
    expect(afterSet).toEqual({ ...created, tags: { tier: 'gold' }, updatedAt: expect.any(String) });
    expect(afterSet).toEqual(await read(kind, created.id));
    expect(set.json().nextActions).toEqual(
      (await call('GET', `/${kind.path}/${created.id}`, tenant.keys.commerce)).json().nextActions,
    );

    // The same value again changes nothing: no write, no audit entry, no event.
    const again = await put(kind, created.id, 'tier', 'gold');
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(afterSet);

    const replaced = await put(kind, created.id, 'tier', 'platinum: the best');
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().data.tags).toEqual({ tier: 'platinum: the best' });
    expect((await put(kind, created.id, 'region.eu-west_1', 'yes')).json().data.tags).toEqual({
      tier: 'platinum: the best',
      'region.eu-west_1': 'yes',
    });

    const removed = await del(kind, created.id, 'tier');
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json().data).toEqual({
      ...afterSet,
      tags: { 'region.eu-west_1': 'yes' },
      updatedAt: expect.any(String),
    });
    // Deleting a key that is not there: 200, nothing changes.
    const missing = await del(kind, created.id, 'tier');
    expect(missing.statusCode).toBe(200);
    expect(missing.json().data).toEqual(removed.json().data);
    expect((await read(kind, created.id)).tags).toEqual({ 'region.eu-west_1': 'yes' });

    const entries = await audits(created.id);
    expect(entries.map((e) => [e.action, e.resourceType, e.details])).toEqual([
      [`${kind.audit}.tag_set`, kind.resourceType, { key: 'tier', before: null, after: 'gold' }],
      [
        `${kind.audit}.tag_set`,
        kind.resourceType,
        { key: 'tier', before: 'gold', after: 'platinum: the best' },
      ],
      [`${kind.audit}.tag_set`, kind.resourceType, { key: 'region.eu-west_1', before: null, after: 'yes' }],
      [
        `${kind.audit}.tag_delete`,
        kind.resourceType,
        { key: 'tier', before: 'platinum: the best', after: null },
      ],
    ]);
    // Accounts and orders emit their `*.updated` with the tags on each change; the others emit nothing.
    expect(await eventCount(kind, created.id)).toBe(eventsBefore + (kind.event ? 4 : 0));
    if (kind.event) {
      const [last] = (await listEvents(t.deps.db, tenant.tenantId, kind.event)).filter(
        (e) => (e.payload as { id: string }).id === created.id,
      );
      expect(last?.payload).toMatchObject({ tags: { 'region.eu-west_1': 'yes' } });
    }
  });

  it('filters the list by one tag and by two (AND), paged with limit=1', async () => {
    const run = Math.random().toString(36).slice(2, 10);
    const a = await create(kind);
    const b = await create(kind);
    const c = await create(kind);
    for (const [r, tags] of [
      [a, { color: `red-${run}`, size: 's' }],
      [b, { color: `red-${run}`, size: 'l' }],
      [c, { color: `blue-${run}`, size: 'l' }],
    ] as const)
      for (const [k, v] of Object.entries(tags)) expect((await put(kind, r.id, k, v)).statusCode).toBe(200);
    const list = async (query: string) => {
      const res = await call('GET', `/${kind.path}?${query}`, tenant.keys.read);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data as Resource[]).map((r) => r.id);
    };
    // Newest first, as the unfiltered list.
    expect(await list(`tag=color:red-${run}`)).toEqual([b.id, a.id]);
    expect(await list(`tag=color:red-${run}&tag=size:l`)).toEqual([b.id]);
    expect(await list(`tag=size:l&tag=color:blue-${run}`)).toEqual([c.id]);
    expect(await list(`tag=color:red-${run}&tag=size:xl`)).toEqual([]);
    // Two values for one key: no row has both.
    expect(await list(`tag=color:red-${run}&tag=color:blue-${run}`)).toEqual([]);
    // The same pair twice is the pair once.
    expect(await list(`tag=color:red-${run}&tag=color:red-${run}`)).toEqual([b.id, a.id]);
    // The filtered rows are among the whole list, tags shown.
    const whole = (await call('GET', `/${kind.path}`, tenant.keys.read)).json().data as Resource[];
    expect(whole.find((r) => r.id === c.id)?.tags).toEqual({ color: `blue-${run}`, size: 'l' });

    // limit=1: each page one row, the `next` action keeps the filters.
    const seen: string[] = [];
    let url = `/${kind.path}?tag=color:red-${run}&limit=1`;
    for (let i = 0; i < 5; i++) {
      const res = await call('GET', url, tenant.keys.read);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.data).toHaveLength(body.meta.nextCursor ? 1 : body.data.length);
      seen.push(...body.data.map((r: Resource) => r.id));
      const next = body.nextActions.find((x: { rel: string }) => x.rel === 'next');
      if (!next) break;
      expect(next.arguments).toMatchObject({ tag: [`color:red-${run}`], limit: 1 });
      url = next.href.replace('/api/v1', '');
    }
    expect(seen).toEqual([b.id, a.id]);
    const twoTags = await call(
      'GET',
      `/${kind.path}?tag=size:l&tag=color:red-${run}&limit=1`,
      tenant.keys.read,
    );
    expect(twoTags.json()).toMatchObject({ data: [{ id: b.id }], meta: { limit: 1, nextCursor: null } });

    // Another tenant's rows with the same tags are not listed.
    const theirs = await create(kind, other);
    expect((await put(kind, theirs.id, 'color', `red-${run}`, other.keys.commerce)).statusCode).toBe(200);
    expect(await list(`tag=color:red-${run}`)).toEqual([b.id, a.id]);
  });

  it('answers 404 for another tenant’s resource and an unknown id, 403 for a read key', async () => {
    const theirs = await create(kind, other);
    for (const res of [
      await put(kind, theirs.id, 'k', 'v'),
      await del(kind, theirs.id, 'k'),
      await put(kind, UNKNOWN_ID, 'k', 'v'),
      await del(kind, UNKNOWN_ID, 'k'),
    ]) {
      expect(res.statusCode, res.body).toBe(404);
      expect(errorBody(res).code).toBe('not_found');
    }
    const mine = await create(kind);
    for (const res of [
      await put(kind, mine.id, 'k', 'v', tenant.keys.read),
      await del(kind, mine.id, 'k', tenant.keys.read),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(errorBody(res).code).toBe('forbidden');
    }
    expect((await read(kind, mine.id)).tags).toEqual({});
    expect(await audits(mine.id)).toEqual([]);
  });
});

describe('tags: bounds', () => {
  const orders = KINDS[1] as Kind;
  let order: Resource;
  beforeAll(async () => {
    order = await create(orders);
  });

  it.each([
    ['k'.repeat(41), 'path.key', 'maxLength'],
    ['a%3Ab', 'path.key', 'pattern'],
    ['a%20b', 'path.key', 'pattern'],
    ['caf%C3%A9', 'path.key', 'pattern'],
    ['a%2Fb', 'path.key', 'pattern'],
  ])('a bad key in the path is 400 naming it: %s', async (tagKey, field, rule) => {
    for (const res of [await put(orders, order.id, tagKey, 'v'), await del(orders, order.id, tagKey)]) {
      expect(res.statusCode, res.body).toBe(400);
      expect(errorBody(res)).toMatchObject({ code: 'validation_failed', details: [{ field, rule }] });
    }
  });

  it.each([
    [{ value: 'v'.repeat(257) }, 'value', 'maxLength'],
    [{ value: '' }, 'value', 'minLength'],
    [{ value: 'two\nlines' }, 'value', 'pattern'],
    [{ value: 5 }, 'value', 'type'],
    [{}, 'value', 'required'],
    [{ value: 'v', extra: 1 }, 'extra', 'additionalProperties'],
  ])('a bad body is 400 naming the field: %j', async (body, field, rule) => {
    const res = await call('PUT', `/orders/${order.id}/tags/k`, tenant.keys.commerce, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(errorBody(res).details).toEqual([expect.objectContaining({ field, rule })]);
  });

  it('a bad id is 400 (every tagged resource has UUID ids, tenant-owned accounts included); an unknown resource is 400', async () => {
    for (const kind of [orders, KINDS[0] as Kind]) {
      const res = await put(kind, kind === orders ? 'not-a-uuid' : 'ba_00000000000000000000', 'k', 'v');
      expect(res.statusCode).toBe(400);
      expect(errorBody(res).details).toEqual([expect.objectContaining({ field: 'path.id', rule: 'format' })]);
    }
    const unknown = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/widgets/0190b000-0000-7000-8000-000000000001/tags/k',
      headers: bearer(tenant.keys.commerce),
      payload: { value: 'v' },
    });
    expect(unknown.statusCode).toBe(400);
    expect(errorBody(unknown).details?.[0]?.field).toBe('path.resource');
  });

  it('takes bounds at their edge, and keys named like Object.prototype members as plain keys', async () => {
    const edge = { ['k'.repeat(40)]: '€'.repeat(256), __proto__x: 'a' };
    for (const [k, v] of Object.entries(edge))
      expect((await put(orders, order.id, k, v)).statusCode).toBe(200);
    for (const k of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const res = await put(orders, order.id, k, `is ${k}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(Object.hasOwn(res.json().data.tags, k)).toBe(true);
    }
    const tags = (await read(orders, order.id)).tags;
    expect(JSON.parse(JSON.stringify(tags))).toEqual(
      JSON.parse(
        '{"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk":"' +
          '€'.repeat(256) +
          '","__proto__x":"a","constructor":"is constructor","toString":"is toString",' +
          '"__proto__":"is __proto__","hasOwnProperty":"is hasOwnProperty"}',
      ),
    );
    // Deleting `constructor` when absent elsewhere is a no-op; present here it goes.
    expect(Object.hasOwn((await del(orders, order.id, 'constructor')).json().data.tags, 'constructor')).toBe(
      false,
    );
    const fresh = await create(orders);
    const noop = await del(orders, fresh.id, 'constructor');
    expect(noop.statusCode).toBe(200);
    expect(noop.json().data.tags).toEqual({});
    expect(await audits(fresh.id)).toEqual([]);
    // A filter on such a key finds the row.
    const listed = await call('GET', '/orders?tag=__proto__:is%20__proto__', tenant.keys.read);
    expect(listed.json().data.map((r: Resource) => r.id)).toEqual([order.id]);
  });

  it('holds at most 50 tags: the 51st key is 400, replacing one at the limit is fine', async () => {
    const full = await create(orders);
    for (let i = 0; i < 50; i++) expect((await put(orders, full.id, `k${i}`, 'v')).statusCode).toBe(200);
    const over = await put(orders, full.id, 'k50', 'v');
    expect(over.statusCode).toBe(400);
    expect(errorBody(over)).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'path.key', rule: 'maxTags' }],
    });
    expect(Object.keys((await read(orders, full.id)).tags)).toHaveLength(50);
    expect((await put(orders, full.id, 'k7', 'replaced')).json().data.tags.k7).toBe('replaced');
    expect((await del(orders, full.id, 'k0')).statusCode).toBe(200);
    expect((await put(orders, full.id, 'k50', 'v')).statusCode).toBe(200);
    expect(Object.keys((await read(orders, full.id)).tags)).toHaveLength(50);
  });

  it.each([
    ['tag=nocolon', 'query.tag.0', 'pattern'],
    ['tag=:value', 'query.tag.0', 'pattern'],
    ['tag=key:', 'query.tag.0', 'pattern'],
    ['tag=bad%20key:v', 'query.tag.0', 'pattern'],
    [`tag=${'k'.repeat(41)}:v`, 'query.tag.0', 'pattern'],
    [`tag=k:${'v'.repeat(257)}`, 'query.tag.0', 'pattern'],
    ['tag=ok:1&tag=broken', 'query.tag.1', 'pattern'],
    [Array.from({ length: 11 }, (_, i) => `tag=k${i}:v`).join('&'), 'query.tag', 'maxItems'],
  ])('a bad tag filter is 400 naming query.tag: %s', async (query, field, rule) => {
    for (const path of ['accounts', 'orders', 'subscriptions', 'payments']) {
      const res = await call('GET', `/${path}?${query}`, tenant.keys.read);
      expect(res.statusCode, `${path} ${res.body}`).toBe(400);
      expect(errorBody(res).details).toEqual([expect.objectContaining({ field, rule })]);
    }
  });

  it('takes a filter at its bounds: 10 pairs, a 40-character key, a 256-character value with colons', async () => {
    const r = await create(orders);
    const value = `a:b${'v'.repeat(253)}`;
    expect((await put(orders, r.id, 'k'.repeat(40), value)).statusCode).toBe(200);
    const query = [
      `tag=${'k'.repeat(40)}:${encodeURIComponent(value)}`,
      ...Array.from({ length: 9 }, () => `tag=${'k'.repeat(40)}:${encodeURIComponent(value)}`),
    ].join('&');
    const res = await call('GET', `/orders?${query}`, tenant.keys.read);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((o: Resource) => o.id)).toEqual([r.id]);
  });
});

describe('tags: streaming, replays and concurrent PUTs', () => {
  it('streams the whole filtered order list (no limit)', async () => {
    const orders = KINDS[1] as Kind;
    const run = Math.random().toString(36).slice(2, 10);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const o = await create(orders);
      await put(orders, o.id, 'batch', run);
      made.unshift(o.id);
    }
    await create(orders);
    const res = await call('GET', `/orders?tag=batch:${run}`, tenant.keys.read);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((o: Resource) => o.id)).toEqual(made);
  });

  it('replays a PUT retried with its Idempotency-Key; another body under the key is 422', async () => {
    const orders = KINDS[1] as Kind;
    const order = await create(orders);
    const headers = { 'idempotency-key': `tag-${Math.random()}` };
    const first = await call(
      'PUT',
      `/orders/${order.id}/tags/stage`,
      tenant.keys.commerce,
      { value: 'a' },
      headers,
    );
    expect(first.statusCode).toBe(200);
    expect((await put(orders, order.id, 'stage', 'b')).statusCode).toBe(200);
    const retry = await call(
      'PUT',
      `/orders/${order.id}/tags/stage`,
      tenant.keys.commerce,
      { value: 'a' },
      headers,
    );
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['x-idempotency-replayed']).toBe('true');
    expect(retry.body).toBe(first.body);
    // Replayed, not run again: the tag keeps the later value.
    expect((await read(orders, order.id)).tags).toEqual({ stage: 'b' });
    expect((await audits(order.id)).map((e) => e.details?.after)).toEqual(['a', 'b']);
    const conflict = await call(
      'PUT',
      `/orders/${order.id}/tags/stage`,
      tenant.keys.commerce,
      { value: 'c' },
      headers,
    );
    expect(conflict.statusCode).toBe(422);
    expect(errorBody(conflict).code).toBe('idempotency_conflict');
  });

  it.each(KINDS)('keeps every one of 20 concurrent PUTs of distinct keys ($path)', async (kind) => {
    const r = await create(kind);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => put(kind, r.id, `key${i}`, `value${i}`)),
    );
    expect(results.map((res) => res.statusCode)).toEqual(Array(20).fill(200));
    const expected = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, `value${i}`]));
    expect((await read(kind, r.id)).tags).toEqual(expected);
    expect(await audits(r.id)).toHaveLength(20);
  });
});
