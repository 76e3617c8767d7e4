import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { consoleApi, consoleUser, cookieOf, signIn, TEST_PASSWORD } from '../support/console.js';

describe('console sessions', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));

  beforeAll(async () => {
    t = await startApp({ clock });
    tenant = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: `/api/v1${url}`, payload, headers });

  it('signs in with email and password: an HTTP-only SameSite cookie and the session', async () => {
    const user = await consoleUser(t, tenant.tenantId, 'support');
    const res = await post('/console/session', { email: user.email.toUpperCase(), password: TEST_PASSWORD });
    expect(res.statusCode).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(
      /^cak_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/,
    );
    const { data } = res.json();
    expect(data).toMatchObject({
      user: { id: user.id, email: user.email, role: 'support', status: 'active' },
      tenant: { id: tenant.tenantId, environment: 'sandbox' },
      expiresAt: '2026-03-01T22:00:00.000Z',
      permissions: ['read', 'audit.read', 'commerce.write', 'refunds.write'],
    });
    expect(data.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const again = await t.app.inject({
      method: 'GET',
      url: '/api/v1/console/session',
      headers: { cookie: cookieOf(setCookie) },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().data.csrfToken).toBe(data.csrfToken);
  });

  it('marks the cookie Secure behind HTTPS', async () => {
    const user = await consoleUser(t, tenant.tenantId, 'viewer');
    const res = await post(
      '/console/session',
      { email: user.email, password: TEST_PASSWORD },
      { 'x-forwarded-proto': 'https' },
    );
    expect(String(res.headers['set-cookie'])).toMatch(/; Secure$/);
  });

  it('refuses a wrong password and an unknown email with the same 401', async () => {
    const user = await consoleUser(t, tenant.tenantId, 'viewer');
    const wrong = await post('/console/session', { email: user.email, password: 'not the password' });
    const unknown = await post('/console/session', {
      email: 'nobody@example.com',
      password: 'whatever it is',
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(errorBody(wrong)).toMatchObject({ code: 'unauthorized', error: 'Wrong email or password' });
    expect(errorBody(unknown).error).toBe(errorBody(wrong).error);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('lets the cookie call the API, with the CSRF token on writes; a Bearer key needs none', async () => {
    const login = await signIn(t, (await consoleUser(t, tenant.tenantId, 'support')).email);
    const asConsole = consoleApi(t, login);
    expect((await asConsole.get('/orders')).statusCode).toBe(200);
    const body = { email: `a-${Date.now()}@example.com`, name: 'A' };
    const created = await asConsole.post('/accounts', body);
    expect(created.statusCode).toBe(201);

    const missing = await consoleApi(t, login, { csrf: false }).post('/accounts', body);
    expect(missing.statusCode).toBe(403);
    expect(errorBody(missing)).toMatchObject({ code: 'forbidden' });
    expect(errorBody(missing).error).toContain('X-CSRF-Token');
    const wrong = await consoleApi(t, login, { csrf: 'x'.repeat(43) }).post('/accounts', body);
    expect(wrong.statusCode).toBe(403);
    expect(errorBody(wrong).error).toContain('X-CSRF-Token');

    const withKey = await api(t, tenant.keys.commerce).post('/accounts', {
      email: `b-${Date.now()}@example.com`,
      name: 'B',
    });
    expect(withKey.statusCode).toBe(201);
  });

  it('expires a session after 12 idle hours and after 7 days at the most', async () => {
    const user = await consoleUser(t, tenant.tenantId, 'viewer');
    const idle = await signIn(t, user.email);
    clock.advance(12 * 3600_000);
    expect((await consoleApi(t, idle).get('/orders')).statusCode).toBe(401);

    const busy = await signIn(t, user.email);
    for (let step = 0; step < 15; step++) {
      clock.advance(11 * 3600_000);
      expect((await consoleApi(t, busy).get('/orders')).statusCode).toBe(200);
    }
    clock.advance(4 * 3600_000);
    expect((await consoleApi(t, busy).get('/orders')).statusCode).toBe(401);
  });

  it('signs out: the cookie is cleared and the session no longer works', async () => {
    const login = await signIn(t, (await consoleUser(t, tenant.tenantId, 'viewer')).email);
    const noCsrf = await consoleApi(t, login, { csrf: false }).delete('/console/session');
    expect(noCsrf.statusCode).toBe(403);
    const out = await consoleApi(t, login).delete('/console/session');
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(
      /^cak_console=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0/,
    );
    expect((await consoleApi(t, login).get('/orders')).statusCode).toBe(401);
    expect((await consoleApi(t, login).get('/console/session')).statusCode).toBe(401);
  });
});
