import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDemoOwner, DEMO_OWNER_EMAIL, demoOwnerSignInLink } from '../../src/modules/team/index.js';
import { consoleLinkTokens, consoleUsers } from '../../src/modules/team/tables.js';
import { DEMO_KEYS_FILE, demoConsoleStart, formatConsoleLink } from '../../src/seed/demo.js';
import { createTestTenant, startApp, type TestApp } from '../harness.js';
import { consoleUser } from '../support/console.js';
import { cleanUpProcesses, tempDir } from '../support/service-processes.js';

// The demo owner's email is unique in the deployment: this file owns it in the test database, and
// each test starts without it.

describe('the demo owner’s first sign-in link', () => {
  let t: TestApp;
  const base = 'http://localhost:3000';

  async function removeDemoOwner() {
    const [existing] = await t.deps.db
      .select()
      .from(consoleUsers)
      .where(eq(consoleUsers.email, DEMO_OWNER_EMAIL));
    if (!existing) return;
    await t.deps.db.delete(consoleLinkTokens).where(eq(consoleLinkTokens.userId, existing.id));
    await t.deps.db.delete(consoleUsers).where(eq(consoleUsers.id, existing.id));
  }
  const usersOf = (tenantId: string) =>
    t.deps.db.select().from(consoleUsers).where(eq(consoleUsers.tenantId, tenantId));
  const redeem = (url: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/console/session/link',
      payload: { token: url.split('#/link/')[1] },
    });
  /** A data directory whose demo-keys.json names `tenantId`, as the seeding wrote it. */
  function dataDirFor(tenantId: string | null) {
    const dir = tempDir();
    if (tenantId) fs.writeFileSync(path.join(dir, DEMO_KEYS_FILE), JSON.stringify({ tenantId, keys: {} }));
    return dir;
  }

  beforeAll(async () => {
    t = await startApp();
  });
  beforeEach(removeDemoOwner);
  afterAll(async () => {
    await t.app.close();
    await cleanUpProcesses();
  });

  it('gives a fresh one-time link at each start until the owner signs in, then none', async () => {
    const tenant = await createTestTenant(t.deps);
    await createDemoOwner(t.deps.db, tenant.tenantId, t.deps.clock.now());
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

  it('gives a demo tenant seeded before console users its first owner at start, with the link', async () => {
    const demo = await createTestTenant(t.deps);
    const bystander = await createTestTenant(t.deps);
    const dataDir = dataDirFor(demo.tenantId);
    const printed = await demoConsoleStart(t.deps.db, dataDir, base, t.deps.clock);
    const url = /(http\S+\/console\/#\/link\/\S+)/.exec(printed)?.[1] ?? '';
    expect(printed).toContain(`Console sign-in (${DEMO_OWNER_EMAIL}, one-time`);
    expect(await usersOf(demo.tenantId)).toMatchObject([
      { email: DEMO_OWNER_EMAIL, role: 'owner', status: 'active', passwordHash: null },
    ]);
    expect(await usersOf(bystander.tenantId)).toEqual([]);

    // The next start prints a fresh link for the same owner, until it is used.
    const again = await demoConsoleStart(t.deps.db, dataDir, base, t.deps.clock);
    expect(again).not.toContain(url);
    expect(await usersOf(demo.tenantId)).toHaveLength(1);
    const signedIn = await redeem(/(http\S+\/console\/#\/link\/\S+)/.exec(again)?.[1] ?? '');
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().data).toMatchObject({
      user: { email: DEMO_OWNER_EMAIL, role: 'owner' },
      tenant: { id: demo.tenantId },
    });
    expect(await demoConsoleStart(t.deps.db, dataDir, base, t.deps.clock)).toBe('');
  });

  it('never creates it for a demo tenant that has users, nor for a tenant that is not the demo one', async () => {
    const withUsers = await createTestTenant(t.deps);
    const member = await consoleUser(t, withUsers.tenantId, 'viewer');
    expect(await demoConsoleStart(t.deps.db, dataDirFor(withUsers.tenantId), base, t.deps.clock)).toBe('');
    expect((await usersOf(withUsers.tenantId)).map((u) => u.id)).toEqual([member.id]);

    // No keys file, one naming no tenant of this database, or an unreadable one: no demo tenant.
    const lonely = await createTestTenant(t.deps);
    for (const dir of [
      dataDirFor(null),
      dataDirFor('00000000-0000-4000-8000-000000000000'),
      dataDirFor('not a uuid'),
    ])
      expect(await demoConsoleStart(t.deps.db, dir, base, t.deps.clock)).toBe('');
    const garbled = tempDir();
    fs.writeFileSync(path.join(garbled, DEMO_KEYS_FILE), '{ not json');
    expect(await demoConsoleStart(t.deps.db, garbled, base, t.deps.clock)).toBe('');
    expect(await usersOf(lonely.tenantId)).toEqual([]);
    const [owner] = await t.deps.db
      .select()
      .from(consoleUsers)
      .where(eq(consoleUsers.email, DEMO_OWNER_EMAIL));
    expect(owner).toBeUndefined();
  });
});
