import { eq } from 'drizzle-orm';
import type { OperationContext } from '../../core/context.js';
import { AppError, validationFailed } from '../../core/errors.js';
import { mintedKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { loginRetryAfter, recordLoginFailure } from './login-limits.js';
import { hashPassword, hashToken, verifyPassword } from './secrets.js';
import {
  type ConsoleUserRow,
  consumeLink,
  findUserByEmail,
  getUser,
  normaliseEmail,
  revokeSession,
  revokeUserSessions,
  type SessionRow,
  startSession,
  updateUserRow,
} from './service.js';
import { consoleLinkTokens } from './tables.js';

/** A session just started: the token goes in the cookie and nowhere else. */
export interface StartedSession {
  user: ConsoleUserRow;
  session: SessionRow;
  token: string;
}

export const MIN_PASSWORD_LENGTH = 12;

const userContext = (user: ConsoleUserRow, requestId: string): OperationContext => ({
  tenantId: user.tenantId,
  keyId: null,
  userId: user.id,
  requestId,
});

const wrongCredentials = () => new AppError('unauthorized', 'Wrong email or password');

/**
 * POST /console/session: the email and password of an active user start a session. Failures are
 * counted per account and per client address; over either limit, 429 before any check.
 */
export async function signIn(
  deps: ServiceDeps,
  input: { email: string; password: string; address: string },
  requestId: string,
): Promise<StartedSession> {
  const email = normaliseEmail(input.email);
  const now = deps.clock.now();
  const retryAfter = await loginRetryAfter(deps.db, email, input.address, now);
  if (retryAfter > 0) {
    throw new AppError(
      'rate_limited',
      `Too many failed sign-ins for this account or address; retry after ${retryAfter} s`,
      undefined,
      retryAfter,
    );
  }
  const user = await findUserByEmail(deps.db, email);
  const matches = await verifyPassword(input.password, user?.passwordHash ?? null);
  if (!user || !matches) {
    await recordLoginFailure(deps.db, email, input.address, now);
    throw wrongCredentials();
  }
  if (user.status !== 'active')
    throw new AppError('unauthorized', 'This console user is disabled; ask an admin');
  return runUnitOfWork(deps, userContext(user, requestId), mintedKey(), async (u) => {
    const signedIn =
      (await updateUserRow(u.tx, user.tenantId, user.id, { lastSignInAt: u.now }, u.now)) ?? user;
    const started = await startSession(u.tx, signedIn, u.now);
    await u.audit({
      action: 'console_user.sign_in',
      resourceType: 'console_user',
      resourceId: user.id,
      details: { method: 'password', sessionId: started.session.id },
    });
    return { user: signedIn, ...started };
  });
}

const usedLink = () =>
  new AppError('unauthorized', 'This link was already used or has expired; ask an admin for a new one');

/**
 * POST /console/session/link: redeems a one-time link (first sign-in, invitation, password reset)
 * and starts a session. An invitation or a reset sets the password it carries; a sign-in link
 * sets one if given.
 */
export async function redeemLink(
  deps: ServiceDeps,
  input: { token: string; password?: string | undefined; name?: string | undefined },
  requestId: string,
): Promise<StartedSession> {
  const now = deps.clock.now();
  const [link] = await deps.db
    .select()
    .from(consoleLinkTokens)
    .where(eq(consoleLinkTokens.tokenHash, hashToken(input.token)));
  if (!link || link.usedAt || link.expiresAt.getTime() <= now.getTime()) throw usedLink();
  if (link.purpose !== 'sign_in' && input.password === undefined) {
    throw validationFailed(
      'password',
      'required',
      `An ${link.purpose.replace('_', ' ')} link sets a password: send \`password\``,
    );
  }
  const user = await getUser(deps.db, link.tenantId, link.userId);
  if (!user || user.status !== 'active')
    throw new AppError('unauthorized', 'This console user is disabled; ask an admin');
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password);
  return runUnitOfWork(deps, userContext(user, requestId), mintedKey(), async (u) => {
    // One redemption wins: the update claims the unused, unexpired link.
    if (!(await consumeLink(u.tx, input.token, u.now))) throw usedLink();
    const patch = {
      lastSignInAt: u.now,
      ...(passwordHash ? { passwordHash } : {}),
      ...(input.name ? { name: input.name } : {}),
    };
    const updated = (await updateUserRow(u.tx, user.tenantId, user.id, patch, u.now)) ?? user;
    // A reset means the old password may be known to someone else: its sessions end.
    if (link.purpose === 'password_reset') await revokeUserSessions(u.tx, user.tenantId, user.id, u.now);
    const started = await startSession(u.tx, updated, u.now);
    if (passwordHash)
      await u.audit({
        action: 'console_user.password_set',
        resourceType: 'console_user',
        resourceId: user.id,
        details: { via: link.purpose },
      });
    await u.audit({
      action: 'console_user.sign_in',
      resourceType: 'console_user',
      resourceId: user.id,
      details: { method: link.purpose, sessionId: started.session.id },
    });
    return { user: updated, ...started };
  });
}

/** DELETE /console/session: the session ends. */
export async function signOut(deps: ServiceDeps, session: SessionRow, requestId: string): Promise<void> {
  const ctx = { tenantId: session.tenantId, keyId: null, userId: session.userId, requestId };
  await runUnitOfWork(deps, ctx, mintedKey(), async (u) => {
    await revokeSession(u.tx, session, u.now);
    await u.audit({
      action: 'console_user.sign_out',
      resourceType: 'console_user',
      resourceId: session.userId,
      details: { sessionId: session.id },
    });
  });
}

/**
 * POST /console/session/password: the signed-in user sets a new password (the current one
 * required when there is one). The user's other sessions end.
 */
export async function changeOwnPassword(
  deps: ServiceDeps,
  current: { user: ConsoleUserRow; session: SessionRow },
  input: { currentPassword?: string | undefined; newPassword: string },
  requestId: string,
): Promise<ConsoleUserRow> {
  const { user, session } = current;
  if (user.passwordHash) {
    if (input.currentPassword === undefined)
      throw validationFailed('currentPassword', 'required', 'Send `currentPassword` to change the password');
    if (!(await verifyPassword(input.currentPassword, user.passwordHash)))
      throw validationFailed('currentPassword', 'matches', '`currentPassword` is not the current password');
  }
  const passwordHash = await hashPassword(input.newPassword);
  return runUnitOfWork(deps, userContext(user, requestId), mintedKey(), async (u) => {
    const updated = await updateUserRow(u.tx, user.tenantId, user.id, { passwordHash }, u.now);
    if (!updated) throw wrongCredentials();
    // This session stays: the user changing the password is the one holding it.
    await revokeUserSessions(u.tx, user.tenantId, user.id, u.now, session.id);
    await u.audit({
      action: 'console_user.password_set',
      resourceType: 'console_user',
      resourceId: user.id,
      details: { via: 'change' },
    });
    return updated;
  });
}
