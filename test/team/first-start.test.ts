import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoOwner, DEMO_OWNER_EMAIL, demoOwnerSignInLink } from '../../src/modules/team/index.js';
import { consoleLinkTokens, consoleUsers } from '../../src/modules/team/tables.js';
import { formatConsoleLink } from '../../src/seed/demo.js';
import { createTestTenant, startApp, type TestApp } from '../harness.js';

describe('the demo owner’s first sign-in link', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
    // The demo owner's email is unique in the deployment: this file owns it in the test database.
    const [existing] = await t.deps.db
      .select()
      .from(consoleUsers)
      .where(eq(consoleUsers.email, DEMO_OWNER_EMAIL));
    if (existing) {
      await t.deps.db.delete(consoleLinkTokens).where(eq(consoleLinkTokens.userId, existing.id));
      await t.deps.db.delete(consoleUsers).where(eq(consoleUsers.id, existing.id));
    }
    const tenant = await createTestTenant(t.deps);
    await createDemoOwner(t.deps.db, tenant.tenantId, t.deps.clock.now());
  });
  afterAll(() => t.app.close());

  const redeem = (url: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/console/session/link',
      payload: { token: url.split('#/link/')[1] },
    });

  it('gives a fresh one-time link at each start until the owner signs in, then none', async () => {
    const base = 'http://localhost:3000';
    const first = await demoOwnerSignInLink(t.deps.db, base, t.deps.clock.now());
    expect(first?.url).toMatch(/^http:\/\/localhost:3000\/console\/#\/link\/[A-Za-z0-9_-]{43}$/);
    expect(formatConsoleLink(first)).toContain(first?.url);
    const second = await demoOwnerSignInLink(t.deps.db, base, t.deps.clock.now());
    expect(second?.url).not.toBe(first?.url);
    expect((await redeem(first?.url ?? '')).statusCode).toBe(401);

    const signedIn = await redeem(second?.url ?? '');
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().data.user).toMatchObject({ email: DEMO_OWNER_EMAIL, role: 'owner' });
    expect(await demoOwnerSignInLink(t.deps.db, base, t.deps.clock.now())).toBeUndefined();
    expect(formatConsoleLink(undefined)).toBe('');
  });
});
