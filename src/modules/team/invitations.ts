import { and, desc, eq, isNull } from 'drizzle-orm';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { actingRole, type IssuedLink, refuseOwnerChangeByAdmin } from './operations.js';
import { type ConsoleUserRow, issueLink } from './service.js';
import { consoleLinkTokens, consoleSessions, consoleUsers } from './tables.js';

// An invitation is the state of a user invited with POST /admin/users until it is accepted: active,
// with no password and no sign-in yet, and an invitation link issued. It is known by its user's id.
// Accepting it (redeeming the link) sets the password and signs in: the user is a member from then.

export interface PendingInvitation {
  user: ConsoleUserRow;
  /** When its newest link stops working. */
  expiresAt: Date;
}

/** Not yet accepted: the conditions an invitee's row meets (its invitation link aside). */
const notAccepted = and(
  eq(consoleUsers.status, 'active'),
  isNull(consoleUsers.lastSignInAt),
  isNull(consoleUsers.passwordHash),
);

/** The tenant's pending invitations (`userId`: only that user's), newest first. */
export async function pendingInvitations(
  db: Queryable,
  tenantId: string,
  userId?: string,
): Promise<PendingInvitation[]> {
  const rows = await db
    .select({ user: consoleUsers, expiresAt: consoleLinkTokens.expiresAt })
    .from(consoleUsers)
    .innerJoin(
      consoleLinkTokens,
      and(
        eq(consoleLinkTokens.tenantId, consoleUsers.tenantId),
        eq(consoleLinkTokens.userId, consoleUsers.id),
        eq(consoleLinkTokens.purpose, 'invitation'),
      ),
    )
    .where(tenantWhere(consoleUsers, tenantId, notAccepted, userId ? eq(consoleUsers.id, userId) : undefined))
    .orderBy(desc(consoleUsers.createdAt), desc(consoleUsers.id), desc(consoleLinkTokens.createdAt));
  // One per user: its newest link (a resend leaves the older ones spent).
  const byUser = new Map<string, PendingInvitation>();
  for (const row of rows) if (!byUser.has(row.user.id)) byUser.set(row.user.id, row);
  return [...byUser.values()];
}

/** The ids of the users whose invitation is pending (GET /admin/users lists the others). */
export async function invitedUserIds(db: Queryable, tenantId: string): Promise<Set<string>> {
  return new Set((await pendingInvitations(db, tenantId)).map((i) => i.user.id));
}

export function presentInvitation(invitation: PendingInvitation, now: Date) {
  const { user, expiresAt } = invitation;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    status: expiresAt.getTime() > now.getTime() ? ('pending' as const) : ('expired' as const),
    invitedAt: iso(user.createdAt),
    expiresAt: iso(expiresAt),
  };
}

/**
 * In the unit of work: the invitee locked (an acceptance racing the change waits, then is seen),
 * still pending, and one the caller may manage. 404 for no user of the tenant; 409 for a user
 * with no pending invitation.
 */
async function lockPendingInvitation(
  tx: Queryable,
  ctx: OperationContext,
  userId: string,
): Promise<ConsoleUserRow> {
  const [locked] = await tx
    .select()
    .from(consoleUsers)
    .where(tenantWhere(consoleUsers, ctx.tenantId, eq(consoleUsers.id, userId)))
    .for('update');
  if (!locked) throw notFound('Invitation');
  const [pending] = await pendingInvitations(tx, ctx.tenantId, userId);
  if (!pending)
    throw new AppError(
      'conflict',
      'This console user has no pending invitation: it has accepted it (or was never invited); a password reset gives it a new link',
    );
  refuseOwnerChangeByAdmin(await actingRole(tx, ctx), locked);
  return locked;
}

/** POST /admin/invitations/{id}/resend: a new invitation link (7 days); the earlier ones stop working. */
export function resendInvitation(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { id: string },
  key: OperationKey<IssuedLink>,
): Promise<IssuedLink> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const user = await lockPendingInvitation(u.tx, ctx, input.id);
    const link = await issueLink(u.tx, user, 'invitation', u.now);
    await u.audit({
      action: 'console_user.invitation_resend',
      resourceType: 'console_user',
      resourceId: user.id,
      details: { email: user.email, expiresAt: link.expiresAt.toISOString() },
    });
    return link;
  });
}

/**
 * DELETE /admin/invitations/{id}: the invitation's links stop working and the invitee, who never
 * signed in, leaves the team (its address may be invited again). The audit entry keeps who it was.
 */
export function revokeInvitation(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { id: string },
  key: OperationKey<void>,
): Promise<void> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const user = await lockPendingInvitation(u.tx, ctx, input.id);
    const ofUser = <T extends typeof consoleLinkTokens | typeof consoleSessions>(table: T) =>
      tenantWhere(table, ctx.tenantId, eq(table.userId, user.id));
    await u.tx.delete(consoleLinkTokens).where(ofUser(consoleLinkTokens));
    await u.tx.delete(consoleSessions).where(ofUser(consoleSessions));
    await u.tx
      .delete(consoleUsers)
      .where(tenantWhere(consoleUsers, ctx.tenantId, eq(consoleUsers.id, user.id)));
    await u.audit({
      action: 'console_user.invitation_revoke',
      resourceType: 'console_user',
      resourceId: user.id,
      details: { email: user.email, role: user.role },
    });
  });
}
