import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { type ConsoleLogin, consoleApi, consoleUser, signedIn, signIn } from '../support/console.js';

const PASSWORD = 'a passphrase long enough';

describe('pending invitations', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let owner: ConsoleLogin;
  let ownerEmail: string;
  const clock = new ManualClock(new Date('2026-05-01T09:00:00Z'));

  beforeAll(async () => {
    t = await startApp({ clock });
    tenant = await createTestTenant(t.deps);
    other = await createTestTenant(t.deps);
    ownerEmail = (await consoleUser(t, tenant.tenantId, 'owner')).email;
  });
  // The tests move the clock by days: each starts with a fresh session.
  beforeEach(async () => {
    owner = await signIn(t, ownerEmail);
  });
  afterAll(() => t.app.close());

  let seq = 0;
  const email = () => `invitee-${Date.now()}-${++seq}@example.com`;
  const tokenOf = (url: string) => url.split('#/link/')[1] as string;
  const accept = (url: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/console/session/link',
      payload: { token: tokenOf(url), password: PASSWORD },
    });
  const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((x) => x.id);

  async function invite(role = 'support', by = owner) {
    const res = await consoleApi(t, by).post('/admin/users', { email: email(), role });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { user: { id: string; email: string }; invitation: { url: string } };
  }

  it('lists invitations apart from users until they are accepted', async () => {
    const { user, invitation } = await invite('support');
    const listed = await consoleApi(t, owner).get('/admin/invitations');
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.find((i: { id: string }) => i.id === user.id)).toEqual({
      id: user.id,
      email: user.email,
      name: user.email.split('@')[0],
      role: 'support',
      status: 'pending',
      invitedAt: clock.now().toISOString(),
      expiresAt: new Date(clock.now().getTime() + 7 * 24 * 3600_000).toISOString(),
    });
    expect(ids(await consoleApi(t, owner).get('/admin/users'))).not.toContain(user.id);
    // Still a user by its id: its role can be changed before it accepts.
    expect((await consoleApi(t, owner).get(`/admin/users/${user.id}`)).statusCode).toBe(200);

    expect((await accept(invitation.url)).statusCode).toBe(200);
    expect(ids(await consoleApi(t, owner).get('/admin/invitations'))).not.toContain(user.id);
    expect(ids(await consoleApi(t, owner).get('/admin/users'))).toContain(user.id);
    // Accepted: nothing left to resend or revoke.
    const resend = await consoleApi(t, owner).post(`/admin/invitations/${user.id}/resend`);
    expect(resend.statusCode).toBe(409);
    expect(errorBody(resend).error).toContain('no pending invitation');
    expect((await consoleApi(t, owner).delete(`/admin/invitations/${user.id}`)).statusCode).toBe(409);
  });

  it('revokes an invitation: its link is refused at sign-in, the invitee is gone, audited', async () => {
    const { user, invitation } = await invite('viewer');
    const revoked = await consoleApi(t, owner).delete(`/admin/invitations/${user.id}`);
    expect(revoked.statusCode).toBe(204);
    const refused = await accept(invitation.url);
    expect(refused.statusCode).toBe(401);
    expect(errorBody(refused).error).toContain('already used or has expired');
    expect(ids(await consoleApi(t, owner).get('/admin/invitations'))).not.toContain(user.id);
    expect((await consoleApi(t, owner).get(`/admin/users/${user.id}`)).statusCode).toBe(404);
    expect((await consoleApi(t, owner).delete(`/admin/invitations/${user.id}`)).statusCode).toBe(404);

    const audit = await api(t, tenant.keys.admin).get(`/audit-logs?resourceId=${user.id}`);
    expect(audit.json().data).toMatchObject([
      {
        action: 'console_user.invitation_revoke',
        actor: { keyId: null, userId: owner.userId },
        details: { email: user.email, role: 'viewer' },
      },
      { action: 'console_user.create' },
    ]);
    // The address is free again.
    const again = await consoleApi(t, owner).post('/admin/users', { email: user.email, role: 'viewer' });
    expect(again.statusCode).toBe(201);
  });

  it('resends an invitation: a new link, the old one dead; an expired one too', async () => {
    const { user, invitation } = await invite('developer');
    clock.advance(8 * 24 * 3600_000);
    owner = await signIn(t, ownerEmail);
    const expired = await consoleApi(t, owner).get('/admin/invitations?limit=100');
    expect(expired.json().data.find((i: { id: string }) => i.id === user.id)).toMatchObject({
      status: 'expired',
    });

    const resent = await consoleApi(t, owner).post(`/admin/invitations/${user.id}/resend`);
    expect(resent.statusCode).toBe(201);
    const link = resent.json().data as { url: string; expiresAt: string };
    expect(link.expiresAt).toBe(new Date(clock.now().getTime() + 7 * 24 * 3600_000).toISOString());
    expect(tokenOf(link.url)).not.toBe(tokenOf(invitation.url));
    const second = await consoleApi(t, owner).post(`/admin/invitations/${user.id}/resend`);
    expect(second.statusCode).toBe(201);
    const listed = await consoleApi(t, owner).get('/admin/invitations?limit=100');
    expect(listed.json().data.filter((i: { id: string }) => i.id === user.id)).toMatchObject([
      { status: 'pending', expiresAt: second.json().data.expiresAt },
    ]);

    // Each resend ends the links before it.
    expect((await accept(link.url)).statusCode).toBe(401);
    expect((await accept(invitation.url)).statusCode).toBe(401);
    const accepted = await accept(second.json().data.url);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().data.user).toMatchObject({ id: user.id, role: 'developer' });

    const audit = await api(t, tenant.keys.admin).get(
      `/audit-logs?resourceId=${user.id}&action=console_user.invitation_resend`,
    );
    expect(audit.json().data).toHaveLength(2);
    expect(audit.json().data[0]).toMatchObject({
      actor: { keyId: null, userId: owner.userId },
      details: { email: user.email, expiresAt: second.json().data.expiresAt },
    });
  });

  it('refuses a viewer’s resend and revoke (403) and a commerce key’s list (403)', async () => {
    const { user, invitation } = await invite('viewer');
    const viewer = await signedIn(t, tenant.tenantId, 'viewer');
    expect((await consoleApi(t, viewer).get('/admin/invitations')).statusCode).toBe(200);
    for (const res of [
      await consoleApi(t, viewer).post(`/admin/invitations/${user.id}/resend`),
      await consoleApi(t, viewer).delete(`/admin/invitations/${user.id}`),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(errorBody(res).error).toBe(
        'The viewer role may not do this: it needs the "team.write" permission',
      );
    }
    expect((await api(t, tenant.keys.commerce).get('/admin/invitations')).statusCode).toBe(403);
    // An admin manages everyone but owners.
    const ownerInvite = await invite('owner');
    const admin = await signedIn(t, tenant.tenantId, 'admin');
    expect((await consoleApi(t, admin).delete(`/admin/invitations/${ownerInvite.user.id}`)).statusCode).toBe(
      403,
    );
    expect((await consoleApi(t, admin).delete(`/admin/invitations/${user.id}`)).statusCode).toBe(204);
    expect((await accept(invitation.url)).statusCode).toBe(401);
  });

  it('answers 404 for another tenant’s invitation and never lists it', async () => {
    const { user, invitation } = await invite('support');
    const foreign = api(t, other.keys.admin);
    expect((await foreign.post(`/admin/invitations/${user.id}/resend`)).statusCode).toBe(404);
    expect((await foreign.delete(`/admin/invitations/${user.id}`)).statusCode).toBe(404);
    expect(ids(await foreign.get('/admin/invitations'))).not.toContain(user.id);
    const foreignOwner = await signedIn(t, other.tenantId, 'owner');
    expect((await consoleApi(t, foreignOwner).delete(`/admin/invitations/${user.id}`)).statusCode).toBe(404);
    // Untouched: the link still works.
    expect((await accept(invitation.url)).statusCode).toBe(200);
  });
});
