import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { consoleUser, TEST_PASSWORD } from '../support/console.js';

describe('console sign-in limits', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const clock = new ManualClock(new Date('2026-05-01T08:00:00Z'));

  beforeAll(async () => {
    t = await startApp({ clock });
    tenant = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  const attempt = (email: string, password: string, address = '203.0.113.7') =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/console/session',
      payload: { email, password },
      remoteAddress: address,
    });

  it('refuses an account after 5 failures in 15 minutes, even with the right password, until they age out', async () => {
    const user = await consoleUser(t, tenant.tenantId, 'viewer');
    for (let i = 0; i < 5; i++)
      expect((await attempt(user.email, 'wrong password', `198.51.100.${i}`)).statusCode).toBe(401);
    const limited = await attempt(user.email, TEST_PASSWORD, '198.51.100.99');
    expect(limited.statusCode).toBe(429);
    expect(errorBody(limited).code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBe(900);
    clock.advance(15 * 60_000);
    expect((await attempt(user.email, TEST_PASSWORD, '198.51.100.99')).statusCode).toBe(200);
  });

  it('refuses an address after 20 failures in 15 minutes, whatever the account; other addresses still sign in', async () => {
    const user = await consoleUser(t, tenant.tenantId, 'viewer');
    for (let i = 0; i < 20; i++) {
      clock.advance(1000);
      expect((await attempt(`nobody-${i}@example.com`, 'guess', '192.0.2.50')).statusCode).toBe(401);
    }
    const limited = await attempt(user.email, TEST_PASSWORD, '192.0.2.50');
    expect(limited.statusCode).toBe(429);
    expect((await attempt(user.email, TEST_PASSWORD, '192.0.2.51')).statusCode).toBe(200);
  });
});
