import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { purgeExpired } from '../../src/http/idempotency/store.js';
import { idempotencyKeys } from '../../src/http/idempotency/tables.js';
import { respond } from '../../src/http/operation.js';
import { listApiKeys } from '../../src/modules/api-keys/index.js';
import { runUnitOfWork } from '../../src/unit-of-work/index.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';

let t: TestApp;
const clock = new ManualClock();
let failNext = 0;

beforeAll(async () => {
  t = await startApp({
    clock,
    extraRoutes: (app) => {
      // A write whose first attempts fail with a 5xx after writing: the retry must run again.
      app.post('/test/flaky', { config: { public: false, scope: 'commerce' } }, async (request, reply) =>
        respond(
          t.deps,
          request,
          reply,
          (ctx, key) =>
            runUnitOfWork(t.deps, ctx, key, async (u) => {
              await u.audit({ action: 'order.create', resourceType: 'order', resourceId: 'flaky' });
              if (failNext > 0) {
                failNext--;
                throw new Error('downstream exploded');
              }
              return { ok: true, at: u.now.toISOString() };
            }),
          (body) => ({ status: 201, body }),
        ),
      );
    },
  });
});
afterAll(() => t.app.close());

const createKey = (
  tenant: TestTenant,
  idemKey: string | undefined,
  payload: object,
  url = '/api/v1/admin/api-keys',
) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: {
      ...bearer(tenant.keys.admin),
      ...(idemKey === undefined ? {} : { 'idempotency-key': idemKey }),
    },
    payload,
  });

describe('Idempotency-Key: replay, concurrency and conflicts', () => {
  it('replays the original response byte for byte, without running it again', async () => {
    const tenant = await createTestTenant(t.deps);
    const before = (await listApiKeys(t.deps.db, tenant.tenantId)).length;
    const first = await createKey(tenant, 'create-1', { name: 'agent', scopes: ['read'] });
    expect(first.statusCode).toBe(201);
    expect(first.headers['x-idempotency-replayed']).toBeUndefined();
    const replay = await createKey(tenant, 'create-1', { scopes: ['read'], name: 'agent' }); // same body, other key order
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    expect((await listApiKeys(t.deps.db, tenant.tenantId)).length).toBe(before + 1);
    // The replayed secret is the one that was issued, and it works.
    const key = replay.json().data.key;
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/manifest', headers: bearer(key) })).statusCode,
    ).toBe(200);
  });

  it('executes 50 concurrent requests with one key exactly once', async () => {
    const tenant = await createTestTenant(t.deps);
    const before = (await listApiKeys(t.deps.db, tenant.tenantId)).length;
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => createKey(tenant, 'burst', { name: 'burst', scopes: ['read'] })),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const fresh = responses.filter((r) => r.statusCode === 201 && !r.headers['x-idempotency-replayed']);
    expect(fresh).toHaveLength(1);
    for (const r of responses.filter((r) => r.statusCode === 201)) expect(r.body).toBe(fresh[0]?.body);
    for (const r of responses.filter((r) => r.statusCode === 409)) {
      expect(errorBody(r).code).toBe('idempotency_in_flight');
      expect(r.headers['retry-after']).toBe('1');
    }
    expect((await listApiKeys(t.deps.db, tenant.tenantId)).length).toBe(before + 1);
  });

  it('422 idempotency_conflict for the same key with a different body, changing nothing', async () => {
    const tenant = await createTestTenant(t.deps);
    await createKey(tenant, 'k', { name: 'one', scopes: ['read'] });
    const before = (await listApiKeys(t.deps.db, tenant.tenantId)).length;
    const res = await createKey(tenant, 'k', { name: 'two', scopes: ['read'] });
    expect(res.statusCode).toBe(422);
    expect(errorBody(res).code).toBe('idempotency_conflict');
    expect((await listApiKeys(t.deps.db, tenant.tenantId)).length).toBe(before);
  });

  it('scopes keys to the path and to the tenant', async () => {
    const tenant = await createTestTenant(t.deps);
    const created = (await createKey(tenant, 'shared', { name: 'a', scopes: ['read'] })).json().data;
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/api-keys/${created.id}/revoke`,
      headers: { ...bearer(tenant.keys.admin), 'idempotency-key': 'shared' },
    });
    expect(revoke.statusCode).toBe(200);
    expect(revoke.headers['x-idempotency-replayed']).toBeUndefined();
    expect(revoke.json().data.status).toBe('revoked');
    const other = await createTestTenant(t.deps);
    const otherCreate = await createKey(other, 'shared', { name: 'a', scopes: ['read'] });
    expect(otherCreate.statusCode).toBe(201);
    expect(otherCreate.headers['x-idempotency-replayed']).toBeUndefined();
    expect(otherCreate.json().data.tenantId).toBe(other.tenantId);
  });
});

describe('Idempotency-Key: what is stored, expiry and scope', () => {
  it('does not store 400s or 5xx: the same key can be retried', async () => {
    const tenant = await createTestTenant(t.deps);
    const bad = await createKey(tenant, 'retry-400', { name: '', scopes: ['read'] });
    expect(bad.statusCode).toBe(400);
    const fixed = await createKey(tenant, 'retry-400', { name: 'ok', scopes: ['read'] });
    expect(fixed.statusCode).toBe(201);

    failNext = 1;
    const flaky = (key: string) =>
      t.app.inject({
        method: 'POST',
        url: '/test/flaky',
        headers: { ...bearer(tenant.keys.commerce), 'idempotency-key': key },
        payload: {},
      });
    const failed = await flaky('retry-500');
    expect(failed.statusCode).toBe(500);
    const retried = await flaky('retry-500');
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['x-idempotency-replayed']).toBeUndefined();
    const replayed = await flaky('retry-500');
    expect(replayed.headers['x-idempotency-replayed']).toBe('true');
    expect(replayed.body).toBe(retried.body);
  });

  it('remembers other 4xx results and replays them', async () => {
    const tenant = await createTestTenant(t.deps);
    const missing = '00000000-0000-7000-8000-000000000001';
    const revoke = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/api-keys/${missing}/revoke`,
        headers: { ...bearer(tenant.keys.admin), 'idempotency-key': 'missing' },
      });
    const first = await revoke();
    expect(first.statusCode).toBe(404);
    const second = await revoke();
    expect(second.statusCode).toBe(404);
    expect(second.headers['x-idempotency-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
  });

  it('expires after 24 hours', async () => {
    const tenant = await createTestTenant(t.deps);
    const first = await createKey(tenant, 'daily', { name: 'day one', scopes: ['read'] });
    clock.advance(24 * 3_600_000 - 1_000);
    const within = await createKey(tenant, 'daily', { name: 'day one', scopes: ['read'] });
    expect(within.headers['x-idempotency-replayed']).toBe('true');
    expect(within.body).toBe(first.body);
    clock.advance(2_000);
    const after = await createKey(tenant, 'daily', { name: 'day one', scopes: ['read'] });
    expect(after.statusCode).toBe(201);
    expect(after.headers['x-idempotency-replayed']).toBeUndefined();
    expect(after.json().data.id).not.toBe(first.json().data.id);
  });

  it('purges records past retention, and only those', async () => {
    const tenant = await createTestTenant(t.deps);
    await createKey(tenant, 'old', { name: 'old', scopes: ['read'] });
    clock.advance(23 * 3_600_000);
    await createKey(tenant, 'recent', { name: 'recent', scopes: ['read'] });
    clock.advance(2 * 3_600_000); // 'old' is 25 h old, 'recent' 2 h
    await purgeExpired(t.deps.db, clock.now());
    const rows = await t.deps.db
      .select({ key: idempotencyKeys.idempotencyKey })
      .from(idempotencyKeys)
      .where(eq(idempotencyKeys.tenantId, tenant.tenantId));
    expect(rows.map((r) => r.key)).toEqual(['recent']);
  });

  it('rejects a key longer than 255 characters with 400 naming the header', async () => {
    const tenant = await createTestTenant(t.deps);
    const res = await createKey(tenant, 'x'.repeat(256), { name: 'k', scopes: ['read'] });
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details?.[0]).toMatchObject({ field: 'header.idempotency-key', rule: 'maxLength' });
    const ok = await createKey(tenant, 'y'.repeat(255), { name: 'k', scopes: ['read'] });
    expect(ok.statusCode).toBe(201);
  });

  it('is scoped to the route and its normalised parameters, not to how the URL was spelled', async () => {
    const tenant = await createTestTenant(t.deps);
    const headers = { ...bearer(tenant.keys.commerce), 'idempotency-key': 'one-order' };
    const payload = { contactId: '01900000-0000-7000-8000-0000000000c1', totalCents: 500 };
    const answers = [];
    for (const url of ['/api/v1/orders', '/api/v1/orders/', '/api/v1/%6frders'])
      answers.push(await t.app.inject({ method: 'POST', url, headers, payload }));
    expect(answers.map((a) => a.statusCode)).toEqual([201, 201, 201]);
    expect(answers.map((a) => a.headers['x-idempotency-replayed'])).toEqual([undefined, 'true', 'true']);
    const id = answers[0]?.json().data.id as string;
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/orders',
      headers: bearer(tenant.keys.read),
    });
    expect(list.json().data.map((o: { id: string }) => o.id)).toEqual([id]);

    // One order id in either case is one scope: the PATCH runs once.
    const patch = (orderId: string) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/v1/orders/${orderId}`,
        headers: { ...bearer(tenant.keys.commerce), 'idempotency-key': 'one-patch' },
        payload: { status: 'confirmed' },
      });
    const first = await patch(id);
    const upper = await patch(id.toUpperCase());
    expect([first.statusCode, upper.statusCode]).toEqual([200, 200]);
    expect(upper.headers['x-idempotency-replayed']).toBe('true');
    const audit = await t.app.inject({
      method: 'GET',
      url: `/api/v1/audit-logs?resourceId=${id}&action=order.update`,
      headers: bearer(tenant.keys.admin),
    });
    expect(audit.json().data).toHaveLength(1);
  });
});
