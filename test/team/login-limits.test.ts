import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { consoleUser, randomAddress, TEST_PASSWORD } from '../support/console.js';

describe('console sign-in limits', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const clock = new ManualClock(new Date('2026-05-01T08:00:00Z'));

  beforeAll(async () => {
    t = await startApp({ clock });
    tenant = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  const attempt = (email: string, password: string, address: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/console/session',
      payload: { email, password },
      remoteAddress: address,
    });

  it('refuses an account after 5 failures in 15 minutes, even with the right password, until they age out', async () => {
    const user = await consoleUser(t, tenant.tenantId, 'viewer');
    for (let i = 0; i < 5; i++)
      expect((await attempt(user.email, 'wrong password', randomAddress())).statusCode).toBe(401);
    const fresh = randomAddress();
    const limited = await attempt(user.email, TEST_PASSWORD, fresh);
    expect(limited.statusCode).toBe(429);
    expect(errorBody(limited).code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBe(900);
    clock.advance(15 * 60_000);
    expect((await attempt(user.email, TEST_PASSWORD, fresh)).statusCode).toBe(200);
  });

  // Twenty failed checks, each as slow as a real password check (so timing tells no email apart).
  it('refuses an address after 20 failures in 15 minutes, whatever the account; other addresses still sign in', async () => {
    const user = await consoleUser(t, tenant.tenantId, 'viewer');
    const address = randomAddress();
    for (let i = 0; i < 20; i++) {
      clock.advance(1000);
      expect((await attempt(`nobody-${randomUUID()}@example.com`, 'guess', address)).statusCode).toBe(401);
    }
    const limited = await attempt(user.email, TEST_PASSWORD, address);
    expect(limited.statusCode).toBe(429);
    expect((await attempt(user.email, TEST_PASSWORD, randomAddress())).statusCode).toBe(200);
  }, 180_000);
});
