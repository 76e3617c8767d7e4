import { eq } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../src/events/outbox.js';
import { idempotencyKeys } from '../../src/http/idempotency/tables.js';
import { respond } from '../../src/http/operation.js';
import { issueApiKey, listApiKeys } from '../../src/modules/api-keys/index.js';
import { webhookDeliveries, webhookSubscriptions } from '../../src/modules/webhooks/tables.js';
import { auditLogs, runUnitOfWork } from '../../src/unit-of-work/index.js';
import { bearer, createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';

describe('transactional outbox: change, audit, event and idempotency record commit together', () => {
  let t: TestApp;
  let failAfterWrites = false;

  beforeAll(async () => {
    t = await startApp({
      extraRoutes: (app) => {
        app.post('/test/write', { config: { public: false, scope: 'commerce' } }, async (request, reply) =>
          respond(
            t.deps,
            request,
            reply,
            (ctx, key) =>
              runUnitOfWork(t.deps, ctx, key, async (u) => {
                const { apiKey } = await issueApiKey(u.tx, ctx.tenantId, {
                  name: 'outbox test',
                  scopes: ['read'],
                  rateTier: 'standard',
                  environment: 'sandbox',
                });
                await u.audit({ action: 'account.create', resourceType: 'api_key', resourceId: apiKey.id });
                await u.emit('account.created', { resourceId: apiKey.id });
                if (failAfterWrites) throw new Error('crash after the writes');
                return { id: apiKey.id };
              }),
            (body) => ({ status: 201, body }),
          ),
        );
      },
    });
  });
  afterAll(() => t.app.close());

  const write = (tenant: TestTenant, idemKey?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/test/write',
      headers: { ...bearer(tenant.keys.commerce), ...(idemKey ? { 'idempotency-key': idemKey } : {}) },
      payload: {},
    });

  const stateOf = async (tenant: TestTenant) => ({
    keys: (await listApiKeys(t.deps.db, tenant.tenantId)).length,
    events: (await listEvents(t.deps.db, tenant.tenantId)).length,
    audit: (await t.deps.db.select().from(auditLogs).where(eq(auditLogs.tenantId, tenant.tenantId))).length,
    idempotency: (
      await t.deps.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.tenantId, tenant.tenantId))
    ).length,
  });

  it('a committed change has its event and audit entry', async () => {
    failAfterWrites = false;
    const tenant = await createTestTenant(t.deps);
    const before = await stateOf(tenant);
    const res = await write(tenant, 'ok-1');
    expect(res.statusCode).toBe(201);
    expect(await stateOf(tenant)).toEqual({
      keys: before.keys + 1,
      events: before.events + 1,
      audit: before.audit + 1,
      idempotency: before.idempotency + 1,
    });
    const [event] = await listEvents(t.deps.db, tenant.tenantId, 'account.created');
    expect(event).toMatchObject({ type: 'account.created', payload: { resourceId: res.json().id } });
  });

  it('fans each event out to the matching active webhook subscriptions, in the same transaction', async () => {
    failAfterWrites = false;
    const tenant = await createTestTenant(t.deps);
    const subscribe = async (events: string[], isActive = true) => {
      const id = uuidv7();
      await t.deps.db.insert(webhookSubscriptions).values({
        tenantId: tenant.tenantId,
        id,
        url: 'https://receiver.example/hook',
        events,
        isActive,
        secretCiphertext: 'v1.test',
        createdAt: new Date(),
        updatedAt: new Date(),
      });
      return id;
    };
    const all = await subscribe(['*']);
    const accounts = await subscribe(['account.created', 'account.updated']);
    await subscribe(['order.created']);
    await subscribe(['*'], false);
    const other = await createTestTenant(t.deps);
    const deliveriesOf = async (tenantId: string) =>
      t.deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.tenantId, tenantId));
    const res = await write(tenant, 'fan-1');
    expect(res.statusCode).toBe(201);
    const [event] = await listEvents(t.deps.db, tenant.tenantId, 'account.created');
    const rows = await deliveriesOf(tenant.tenantId);
    expect(rows.map((r) => r.subscriptionId).sort()).toEqual([all, accounts].sort());
    expect(rows.every((r) => r.eventId === event?.id && r.status === 'pending' && r.attemptCount === 0)).toBe(
      true,
    );
    expect(await deliveriesOf(other.tenantId)).toEqual([]);
    // A subscription created after the event does not receive it; a rolled-back event fans out nothing.
    await subscribe(['*']);
    expect(await deliveriesOf(tenant.tenantId)).toHaveLength(2);
    failAfterWrites = true;
    expect((await write(tenant)).statusCode).toBe(500);
    failAfterWrites = false;
    expect(await deliveriesOf(tenant.tenantId)).toHaveLength(2);
  });

  it.each([
    ['without', undefined],
    ['with', 'fail-1'],
  ])(
    'a change that fails after its writes leaves nothing behind (%s an Idempotency-Key)',
    async (_label, key) => {
      failAfterWrites = true;
      const tenant = await createTestTenant(t.deps);
      const before = await stateOf(tenant);
      const res = await write(tenant, key);
      expect(res.statusCode).toBe(500);
      expect(await stateOf(tenant)).toEqual(before);
      failAfterWrites = false;
    },
  );
});
