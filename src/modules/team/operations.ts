import { and, eq } from 'drizzle-orm';
import type { OperationContext } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import { diffChanges, type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import type { Role } from './roles.js';
import {
  type ConsoleUserRow,
  findUserByEmail,
  getUser,
  insertUser,
  issueLink,
  revokeUserSessions,
  updateUserRow,
} from './service.js';
import { consoleUsers } from './tables.js';

/** A one-time link as issued: the token is in this result only. */
export interface IssuedLink {
  token: string;
  expiresAt: Date;
}

export interface InvitedUser {
  user: ConsoleUserRow;
  invitation: IssuedLink;
}

/**
 * The role the caller acts with: a console user's own, re-read in the transaction; an API key
 * with the `admin` scope acts as an owner (keys keep their scopes).
 */
export async function actingRole(db: Queryable, ctx: OperationContext): Promise<string> {
  if (!ctx.userId) return 'owner';
  return (await getUser(db, ctx.tenantId, ctx.userId))?.role ?? 'viewer';
}

/** An admin manages everyone but owners: changing, disabling or resetting one, or making one. */
export function refuseOwnerChangeByAdmin(actor: string, target: { role: string } | null, newRole?: string) {
  if (actor === 'owner') return;
  if (target?.role === 'owner' || newRole === 'owner') {
    throw new AppError('forbidden', `The ${actor} role may not change an owner or make one; an owner can`);
  }
}

/** POST /admin/users: the user, active with no password, and its one-time invitation link. */
export function inviteUser(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { email: string; role: Role; name?: string | undefined },
  key: OperationKey<InvitedUser>,
): Promise<InvitedUser> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    refuseOwnerChangeByAdmin(await actingRole(u.tx, ctx), null, input.role);
    if (await findUserByEmail(u.tx, input.email)) {
      throw new AppError('conflict', 'This email already belongs to a console user');
    }
    const name = input.name ?? input.email.split('@')[0] ?? input.email;
    const user = await insertUser(u.tx, ctx.tenantId, { email: input.email, name, role: input.role }, u.now);
    const invitation = await issueLink(u.tx, user, 'invitation', u.now);
    await u.audit({
      action: 'console_user.create',
      resourceType: 'console_user',
      resourceId: user.id,
      details: {
        email: user.email,
        role: user.role,
        invitationExpiresAt: invitation.expiresAt.toISOString(),
      },
    });
    return { user, invitation };
  });
}

/** The tenant's active owners, locked: two demotions at once cannot leave none. */
async function lockedActiveOwners(db: Queryable, tenantId: string): Promise<number> {
  const rows = await db
    .select({ id: consoleUsers.id })
    .from(consoleUsers)
    .where(
      tenantWhere(
        consoleUsers,
        tenantId,
        and(eq(consoleUsers.role, 'owner'), eq(consoleUsers.status, 'active')),
      ),
    )
    .for('update');
  return rows.length;
}

/** PATCH /admin/users/{id}: role, status or name; disabling ends the user's sessions. */
export function updateUser(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: {
    id: string;
    role?: Role | undefined;
    status?: 'active' | 'disabled' | undefined;
    name?: string | undefined;
  },
  key: OperationKey<ConsoleUserRow>,
): Promise<ConsoleUserRow> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const before = await getUser(u.tx, ctx.tenantId, input.id);
    if (!before) throw notFound('Console user');
    refuseOwnerChangeByAdmin(await actingRole(u.tx, ctx), before, input.role);
    const leavesOwners =
      before.role === 'owner' &&
      before.status === 'active' &&
      ((input.role !== undefined && input.role !== 'owner') || input.status === 'disabled');
    if (leavesOwners && (await lockedActiveOwners(u.tx, ctx.tenantId)) <= 1) {
      throw new AppError('conflict', 'This is the last active owner: make another user an owner first');
    }
    const patch = {
      ...(input.role !== undefined ? { role: input.role } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(input.name !== undefined ? { name: input.name } : {}),
    };
    const after = await updateUserRow(u.tx, ctx.tenantId, before.id, patch, u.now);
    if (!after) throw notFound('Console user');
    if (after.status === 'disabled') await revokeUserSessions(u.tx, ctx.tenantId, after.id, u.now);
    const fields = (row: ConsoleUserRow) => ({ role: row.role, status: row.status, name: row.name });
    await u.audit({
      action: 'console_user.update',
      resourceType: 'console_user',
      resourceId: after.id,
      details: diffChanges(fields(before), fields(after)),
    });
    return after;
  });
}

/** POST /admin/users/{id}/password-reset: a one-time link (24 h) that sets a new password. */
export function issuePasswordReset(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { id: string },
  key: OperationKey<IssuedLink>,
): Promise<IssuedLink> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const user = await getUser(u.tx, ctx.tenantId, input.id);
    if (!user) throw notFound('Console user');
    refuseOwnerChangeByAdmin(await actingRole(u.tx, ctx), user);
    if (user.status !== 'active') {
      throw new AppError(
        'conflict',
        'This console user is disabled: enable it before resetting its password',
      );
    }
    const link = await issueLink(u.tx, user, 'password_reset', u.now);
    await u.audit({
      action: 'console_user.password_reset',
      resourceType: 'console_user',
      resourceId: user.id,
      details: { expiresAt: link.expiresAt.toISOString() },
    });
    return link;
  });
}

/** DELETE /admin/users/{id}/sessions: every session of the user ends. */
export function revokeAllSessions(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { id: string },
  key: OperationKey<number>,
): Promise<number> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const user = await getUser(u.tx, ctx.tenantId, input.id);
    if (!user) throw notFound('Console user');
    refuseOwnerChangeByAdmin(await actingRole(u.tx, ctx), user);
    const revoked = await revokeUserSessions(u.tx, ctx.tenantId, user.id, u.now);
    await u.audit({
      action: 'console_user.sessions_revoke',
      resourceType: 'console_user',
      resourceId: user.id,
      details: { revoked },
    });
    return revoked;
  });
}
