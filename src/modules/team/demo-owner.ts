import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { findUserByEmail, insertUser, issueLink, linkUrl, updateUserRow } from './service.js';
import { consoleUsers } from './tables.js';

/** The embedded demo tenant's first owner: no password until the printed link is used. */
export const DEMO_OWNER_EMAIL = 'owner@demo.local';

export async function createDemoOwner(db: Queryable, tenantId: string, now: Date): Promise<void> {
  await insertUser(db, tenantId, { email: DEMO_OWNER_EMAIL, name: 'Demo owner', role: 'owner' }, now);
}

/**
 * The demo tenant's first owner, when the tenant has no console user at all (a database seeded
 * before console users existed) and the address is free: true when it was created. A tenant with
 * users already is left alone, whoever they are.
 */
export async function createDemoOwnerIfNoUsers(db: Queryable, tenantId: string, now: Date): Promise<boolean> {
  const [anyUser] = await db
    .select({ id: consoleUsers.id })
    .from(consoleUsers)
    .where(tenantWhere(consoleUsers, tenantId))
    .limit(1);
  if (anyUser || (await findUserByEmail(db, DEMO_OWNER_EMAIL))) return false;
  await createDemoOwner(db, tenantId, now);
  return true;
}

/**
 * A fresh one-time sign-in link for the demo owner while it has never signed in (printed at each
 * start until then; each new link ends the previous one); undefined afterwards.
 */
export async function demoOwnerSignInLink(
  db: Queryable,
  baseUrl: string,
  now: Date,
): Promise<{ url: string; expiresAt: Date } | undefined> {
  const owner = await findUserByEmail(db, DEMO_OWNER_EMAIL);
  if (!owner || owner.lastSignInAt || owner.status !== 'active') return undefined;
  const { token, expiresAt } = await issueLink(db, owner, 'sign_in', now);
  return { url: linkUrl(baseUrl, token), expiresAt };
}

/** A user with a password hash, outside any request (fixtures, operators' scripts). */
export async function createUserWithPassword(
  db: Queryable,
  tenantId: string,
  input: { email: string; name: string; role: string; passwordHash: string },
  now: Date,
) {
  const user = await insertUser(db, tenantId, input, now);
  return (await updateUserRow(db, tenantId, user.id, { passwordHash: input.passwordHash }, now)) ?? user;
}
