import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { type ConsoleLogin, consoleApi, signedIn } from '../support/console.js';

/** One representative call per permission; the answer when the role may make it is anything but 403. */
const ACTIONS: Record<
  string,
  (c: ReturnType<typeof consoleApi>) => ReturnType<ReturnType<typeof consoleApi>['get']>
> = {
  read: (c) => c.get('/orders'),
  'commerce.write': (c) => c.post('/accounts', { email: `${randomUUID()}@example.com`, name: 'Buyer' }),
  'refunds.write': (c) => c.post(`/payments/${randomUUID()}/refunds`, { reason: 'requested_by_customer' }),
  'catalog.write': (c) => c.post('/admin/partners', { name: 'P', code: randomUUID() }),
  'webhooks.write': (c) =>
    c.post('/webhooks', { url: 'https://hooks.example.com/commerce', events: ['order.created'] }),
  'api_keys.write': (c) => c.post('/admin/api-keys', { name: 'k', scopes: ['read'] }),
  'settings.write': (c) => c.patch('/admin/settings', { usageMetering: false }),
  'team.write': (c) => c.post('/admin/users', { email: `${randomUUID()}@example.com`, role: 'viewer' }),
  'audit.read': (c) => c.get('/audit-logs'),
};

const ALLOWED: Record<string, string[]> = {
  owner: Object.keys(ACTIONS),
  admin: Object.keys(ACTIONS),
  developer: ['read', 'audit.read', 'webhooks.write', 'api_keys.write', 'catalog.write'],
  support: ['read', 'audit.read', 'commerce.write', 'refunds.write'],
  viewer: ['read'],
};

describe('console roles', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const logins: Record<string, ConsoleLogin> = {};

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    for (const role of Object.keys(ALLOWED)) logins[role] = await signedIn(t, tenant.tenantId, role);
  });
  afterAll(() => t.app.close());

  it('lists the roles with their permissions', async () => {
    const res = await consoleApi(t, logins.viewer as ConsoleLogin).get('/admin/roles');
    expect(res.statusCode).toBe(200);
    const roles = res.json().data as { name: string; permissions: string[] }[];
    expect(roles.map((r) => r.name)).toEqual(['owner', 'admin', 'developer', 'support', 'viewer']);
    for (const role of roles)
      expect([...role.permissions].sort()).toEqual([...(ALLOWED[role.name] ?? [])].sort());
    expect((await api(t, tenant.keys.admin).get('/admin/roles')).statusCode).toBe(200);
    expect((await api(t, tenant.keys.commerce).get('/admin/roles')).statusCode).toBe(403);
  });

  for (const [role, allowed] of Object.entries(ALLOWED)) {
    it(`${role}: may do ${allowed.join(', ')}; is refused the rest with 403 naming the role and permission`, async () => {
      const asRole = consoleApi(t, logins[role] as ConsoleLogin);
      for (const [permission, call] of Object.entries(ACTIONS)) {
        const res = await call(asRole);
        if (allowed.includes(permission)) {
          expect(res.statusCode, `${role} ${permission}: ${res.body}`).not.toBe(403);
          expect(res.statusCode, `${role} ${permission}: ${res.body}`).toBeLessThan(500);
        } else {
          expect(res.statusCode, `${role} ${permission}`).toBe(403);
          expect(errorBody(res)).toMatchObject({
            code: 'forbidden',
            error: `The ${role} role may not do this: it needs the "${permission}" permission`,
          });
        }
      }
    });
  }

  it('a viewer reads everything readable but writes nothing', async () => {
    const viewer = consoleApi(t, logins.viewer as ConsoleLogin);
    for (const path of [
      '/orders',
      '/accounts',
      '/payments',
      '/webhooks',
      '/admin/api-keys',
      '/admin/users',
      '/admin/partners',
    ])
      expect((await viewer.get(path)).statusCode, path).toBe(200);
    expect((await viewer.get('/audit-logs')).statusCode).toBe(403);
  });

  it('records the console user as the actor of what it does', async () => {
    const support = logins.support as ConsoleLogin;
    const created = await consoleApi(t, support).post('/accounts', {
      email: `${randomUUID()}@example.com`,
      name: 'Audited',
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id;
    const audit = await api(t, tenant.keys.admin).get(`/audit-logs?resourceId=${id}`);
    expect(audit.json().data).toMatchObject([
      { action: 'account.create', actor: { keyId: null, userId: support.userId } },
    ]);

    const byKey = await api(t, tenant.keys.commerce).post('/accounts', {
      email: `${randomUUID()}@example.com`,
      name: 'K',
    });
    const keyAudit = await api(t, tenant.keys.admin).get(`/audit-logs?resourceId=${byKey.json().data.id}`);
    expect(keyAudit.json().data).toMatchObject([{ actor: { keyId: tenant.keyIds.commerce, userId: null } }]);
  });
});
