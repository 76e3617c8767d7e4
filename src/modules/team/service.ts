import { and, desc, eq, gt, isNull, ne } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { iso, isoOrNull } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { hashToken, newToken } from './secrets.js';
import { consoleLinkTokens, consoleSessions, consoleUsers } from './tables.js';

export type ConsoleUserRow = typeof consoleUsers.$inferSelect;
export type SessionRow = typeof consoleSessions.$inferSelect;
export type LinkPurpose = 'sign_in' | 'invitation' | 'password_reset';

/** Idle expiry of a session, and its absolute one. */
export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_MAX_MS = 7 * 24 * 3600_000;
/** How long a link is good for, by purpose. */
export const LINK_TTL_MS: Record<LinkPurpose, number> = {
  sign_in: 24 * 3600_000,
  invitation: 7 * 24 * 3600_000,
  password_reset: 24 * 3600_000,
};

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

export function presentUser(row: ConsoleUserRow) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    lastSignInAt: isoOrNull(row.lastSignInAt),
  };
}
export type PresentedUser = ReturnType<typeof presentUser>;

export async function getUser(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<ConsoleUserRow | undefined> {
  const [row] = await db
    .select()
    .from(consoleUsers)
    .where(tenantWhere(consoleUsers, tenantId, eq(consoleUsers.id, id)));
  return row;
}

export async function listUsers(db: Queryable, tenantId: string): Promise<ConsoleUserRow[]> {
  return db
    .select()
    .from(consoleUsers)
    .where(tenantWhere(consoleUsers, tenantId))
    .orderBy(desc(consoleUsers.createdAt), desc(consoleUsers.id));
}

/** Sign-in lookup: by email across tenants (an address belongs to one tenant's console). */
export async function findUserByEmail(db: Queryable, email: string): Promise<ConsoleUserRow | undefined> {
  const [row] = await db
    .select()
    .from(consoleUsers)
    .where(eq(consoleUsers.email, normaliseEmail(email)));
  return row;
}

export async function insertUser(
  db: Queryable,
  tenantId: string,
  input: { email: string; name: string; role: string },
  now: Date,
): Promise<ConsoleUserRow> {
  const [row] = await db
    .insert(consoleUsers)
    .values({
      tenantId,
      id: uuidv7(),
      email: normaliseEmail(input.email),
      name: input.name,
      role: input.role,
      status: 'active',
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error('console user insert returned no row');
  return row;
}

export async function updateUserRow(
  db: Queryable,
  tenantId: string,
  id: string,
  patch: Partial<Pick<ConsoleUserRow, 'role' | 'status' | 'name' | 'passwordHash' | 'lastSignInAt'>>,
  now: Date,
): Promise<ConsoleUserRow | undefined> {
  const [row] = await db
    .update(consoleUsers)
    .set({ ...patch, updatedAt: now })
    .where(tenantWhere(consoleUsers, tenantId, eq(consoleUsers.id, id)))
    .returning();
  return row;
}

/** The tenant's active owners (the last one cannot be demoted or disabled). */
export async function activeOwnerCount(db: Queryable, tenantId: string): Promise<number> {
  const rows = await db
    .select({ id: consoleUsers.id })
    .from(consoleUsers)
    .where(
      tenantWhere(consoleUsers, tenantId, eq(consoleUsers.role, 'owner'), eq(consoleUsers.status, 'active')),
    );
  return rows.length;
}

/** A new session for the user; the token is returned once (the cookie), its hash stored. */
export async function startSession(
  db: Queryable,
  user: ConsoleUserRow,
  now: Date,
): Promise<{ session: SessionRow; token: string }> {
  const token = newToken();
  const [session] = await db
    .insert(consoleSessions)
    .values({
      tenantId: user.tenantId,
      id: uuidv7(),
      userId: user.id,
      tokenHash: hashToken(token),
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_MAX_MS),
    })
    .returning();
  if (!session) throw new Error('console session insert returned no row');
  return { session, token };
}

/** When a session ends if unused from now: its idle expiry, capped by its absolute one. */
export const sessionExpiry = (session: SessionRow) =>
  new Date(Math.min(session.lastSeenAt.getTime() + SESSION_IDLE_MS, session.expiresAt.getTime()));

/** The live session of a token with its user, or undefined (unknown, revoked, expired, user disabled). */
export async function liveSession(
  db: Queryable,
  token: string,
  now: Date,
): Promise<{ session: SessionRow; user: ConsoleUserRow } | undefined> {
  const [row] = await db
    .select({ session: consoleSessions, user: consoleUsers })
    .from(consoleSessions)
    .innerJoin(
      consoleUsers,
      and(eq(consoleUsers.tenantId, consoleSessions.tenantId), eq(consoleUsers.id, consoleSessions.userId)),
    )
    .where(and(eq(consoleSessions.tokenHash, hashToken(token)), isNull(consoleSessions.revokedAt)));
  if (!row || row.user.status !== 'active') return undefined;
  if (sessionExpiry(row.session).getTime() <= now.getTime()) return undefined;
  return row;
}

export async function touchSession(db: Queryable, session: SessionRow, now: Date): Promise<void> {
  await db
    .update(consoleSessions)
    .set({ lastSeenAt: now })
    .where(tenantWhere(consoleSessions, session.tenantId, eq(consoleSessions.id, session.id)));
}

export async function revokeSession(db: Queryable, session: SessionRow, now: Date): Promise<void> {
  await db
    .update(consoleSessions)
    .set({ revokedAt: now })
    .where(
      tenantWhere(
        consoleSessions,
        session.tenantId,
        eq(consoleSessions.id, session.id),
        isNull(consoleSessions.revokedAt),
      ),
    );
}

/** Revokes every live session of the user (but `keep`); how many were. */
export async function revokeUserSessions(
  db: Queryable,
  tenantId: string,
  userId: string,
  now: Date,
  keep?: string,
): Promise<number> {
  const rows = await db
    .update(consoleSessions)
    .set({ revokedAt: now })
    .where(
      tenantWhere(
        consoleSessions,
        tenantId,
        eq(consoleSessions.userId, userId),
        isNull(consoleSessions.revokedAt),
        gt(consoleSessions.expiresAt, now),
        keep ? ne(consoleSessions.id, keep) : undefined,
      ),
    )
    .returning({ id: consoleSessions.id });
  return rows.length;
}

/** A one-time link for the user; earlier unused links of the same purpose stop working. */
export async function issueLink(
  db: Queryable,
  user: Pick<ConsoleUserRow, 'tenantId' | 'id'>,
  purpose: LinkPurpose,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  await db
    .update(consoleLinkTokens)
    .set({ usedAt: now })
    .where(
      tenantWhere(
        consoleLinkTokens,
        user.tenantId,
        eq(consoleLinkTokens.userId, user.id),
        eq(consoleLinkTokens.purpose, purpose),
        isNull(consoleLinkTokens.usedAt),
      ),
    );
  const token = newToken();
  const expiresAt = new Date(now.getTime() + LINK_TTL_MS[purpose]);
  await db.insert(consoleLinkTokens).values({
    tenantId: user.tenantId,
    id: uuidv7(),
    userId: user.id,
    purpose,
    tokenHash: hashToken(token),
    createdAt: now,
    expiresAt,
  });
  return { token, expiresAt };
}

/** Marks the link used, if it is unused and unexpired (one caller wins): its row, or undefined. */
export async function consumeLink(db: Queryable, token: string, now: Date) {
  const [row] = await db
    .update(consoleLinkTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(consoleLinkTokens.tokenHash, hashToken(token)),
        isNull(consoleLinkTokens.usedAt),
        gt(consoleLinkTokens.expiresAt, now),
      ),
    )
    .returning();
  return row;
}

/** The console's link for a token: the console reads it from the hash. */
export const linkUrl = (publicBaseUrl: string, token: string) =>
  `${publicBaseUrl.replace(/\/$/, '')}/console/#/link/${token}`;
