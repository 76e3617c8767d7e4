import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';

describe('audit log', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const clock = new ManualClock(new Date('2030-03-01T10:00:00.000Z'));
  const created: string[] = [];

  beforeAll(async () => {
    t = await startApp({ clock });
    tenant = await createTestTenant(t.deps);
    // Five keys one minute apart, then revoke the first two.
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/admin/api-keys',
        headers: bearer(tenant.keys.admin),
        payload: { name: `key ${i}`, scopes: ['read'] },
      });
      created.push(res.json().data.id);
      clock.advance(60_000);
    }
    for (const id of created.slice(0, 2)) {
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/api-keys/${id}/revoke`,
        headers: bearer(tenant.keys.admin),
      });
      clock.advance(60_000);
    }
  });
  afterAll(() => t.app.close());

  const list = (query = '', key = tenant.keys.admin) =>
    t.app.inject({ method: 'GET', url: `/api/v1/audit-logs${query}`, headers: bearer(key) });

  it('records who did what, newest first, with the request id', async () => {
    const res = await list();
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.pagination).toEqual({ total: 7, limit: 50, offset: 0 });
    expect(body.data.map((e: { action: string }) => e.action)).toEqual([
      'api_key.revoke',
      'api_key.revoke',
      'api_key.create',
      'api_key.create',
      'api_key.create',
      'api_key.create',
      'api_key.create',
    ]);
    const newest = body.data[0];
    expect(newest).toMatchObject({
      tenantId: tenant.tenantId,
      resourceType: 'api_key',
      resourceId: created[1],
      actor: { keyId: tenant.keyIds.admin },
      requestId: expect.any(String),
      createdAt: '2030-03-01T10:06:00.000Z',
    });
    expect(newest.details).toMatchObject({
      before: { revokedAt: null },
      after: { revokedAt: '2030-03-01T10:06:00.000Z' },
    });
  });

  it('filters by action substring, case-insensitively', async () => {
    const res = await list('?action=KEY.REV');
    expect(res.json().pagination.total).toBe(2);
    expect(res.json().data.every((e: { action: string }) => e.action === 'api_key.revoke')).toBe(true);
    expect((await list('?action=nothing-like-this')).json().pagination.total).toBe(0);
  });

  it('filters by resource', async () => {
    const res = await list(`?resourceType=api_key&resourceId=${created[0]}`);
    expect(res.json().data.map((e: { action: string }) => e.action)).toEqual([
      'api_key.revoke',
      'api_key.create',
    ]);
  });

  it('filters by since/until (inclusive) and sorts oldest first on request', async () => {
    const res = await list('?since=2030-03-01T10:01:00Z&until=2030-03-01T10:03:00Z&sort=createdAt');
    expect(res.json().data.map((e: { createdAt: string }) => e.createdAt)).toEqual([
      '2030-03-01T10:01:00.000Z',
      '2030-03-01T10:02:00.000Z',
      '2030-03-01T10:03:00.000Z',
    ]);
  });

  it.each(['since=yesterday', 'until=2030-13-45', 'since=2030-03-02T00:00:00Z&until=2030-03-01T00:00:00Z'])(
    '400 validation_failed for %s',
    async (query) => {
      const res = await list(`?${query}`);
      expect(res.statusCode).toBe(400);
      const body = errorBody(res);
      expect(body.code).toBe('validation_failed');
      expect(body.details?.[0]?.field).toMatch(/^query\.(since|until)$/);
    },
  );

  it('pages server-side: total counts every match, not the page', async () => {
    const first = await list('?limit=3');
    expect(first.json().data).toHaveLength(3);
    expect(first.json().pagination).toEqual({ total: 7, limit: 3, offset: 0 });
    const next = first.json().nextActions.find((a: { rel: string }) => a.rel === 'next');
    expect(next).toMatchObject({ method: 'GET', requiredScope: 'admin', allowed: true });
    // `next` goes on by cursor (stable while entries are added); `offset` still works.
    expect(next.arguments).toMatchObject({ limit: 3, cursor: first.json().meta.nextCursor });
    const second = await t.app.inject({ method: 'GET', url: next.href, headers: bearer(tenant.keys.admin) });
    expect(second.json().pagination).toEqual({ total: 7, limit: 3, offset: 0 });
    const ids = [...first.json().data, ...second.json().data].map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(6);
    const byOffset = await list('?limit=3&offset=3');
    expect(byOffset.json().data).toEqual(second.json().data);
    expect((await list(`?limit=3&offset=3&cursor=${first.json().meta.nextCursor}`)).statusCode).toBe(400);
    const last = await list('?limit=3&offset=6');
    expect(last.json().data).toHaveLength(1);
    expect(last.json().nextActions.map((a: { rel: string }) => a.rel)).toEqual(['previous']);
    expect((await list('?limit=201')).statusCode).toBe(400);
  });

  it('is admin-only and tenant-scoped', async () => {
    expect((await list('', tenant.keys.commerce)).statusCode).toBe(403);
    const other = await createTestTenant(t.deps);
    const res = await list('', other.keys.admin);
    expect(res.json().pagination.total).toBe(0);
  });
});
