import type { RequestContext } from '../../../http/context.js';
import { envelope, next } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { InvitedUser, IssuedLink } from '../operations.js';
import { type ConsoleUserRow, linkUrl, presentUser } from '../service.js';

export const USER_TAGS = ['Console users'];

export const userActions = (user: { id: string }) => [
  next('self', 'getConsoleUser', { id: user.id }),
  next('update', 'updateConsoleUser', { id: user.id }),
  next('reset_password', 'resetConsoleUserPassword', { id: user.id }),
  next('revoke_sessions', 'revokeConsoleUserSessions', { id: user.id }),
  next('list', 'listConsoleUsers'),
];

export const presentLink = (publicBaseUrl: string, link: IssuedLink) => ({
  url: linkUrl(publicBaseUrl, link.token),
  expiresAt: link.expiresAt.toISOString(),
});

export const userResponse =
  (status: number) =>
  (user: ConsoleUserRow, ctx: RequestContext): Presented => ({
    status,
    body: envelope(ctx, presentUser(user), userActions(user)),
  });

/** A one-time link just issued (a reset, a resent invitation): 201, shown only in this answer. */
export const linkResponse =
  (publicBaseUrl: string, actions: ReturnType<typeof next>[]) =>
  (link: IssuedLink, ctx: RequestContext): Presented => ({
    status: 201,
    body: envelope(ctx, presentLink(publicBaseUrl, link), actions),
  });

export const invitedResponse =
  (publicBaseUrl: string) =>
  ({ user, invitation }: InvitedUser, ctx: RequestContext): Presented => ({
    status: 201,
    body: envelope(
      ctx,
      { user: presentUser(user), invitation: presentLink(publicBaseUrl, invitation) },
      userActions(user),
    ),
  });
