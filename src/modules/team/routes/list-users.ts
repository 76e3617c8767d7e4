import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { invitedUserIds } from '../invitations.js';
import { ConsoleUserSchema } from '../schemas.js';
import { listUsers, presentUser } from '../service.js';
import { USER_TAGS } from './shared.js';

export const listUsersRoute = defineRoute({
  method: 'GET',
  path: '/admin/users',
  operationId: 'listConsoleUsers',
  summary: 'List console users',
  description:
    "The people who sign in to this tenant's console, newest first, with their role and status. Invited people " +
    `are listed apart until they accept (GET /admin/invitations). ${LIST_PAGING.text}`,
  tags: USER_TAGS,
  scope: 'admin',
  query: PageQuery,
  responses: {
    200: ListEnvelope(ConsoleUserSchema, 'The tenant’s console users but pending invitations, newest first.'),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const [users, invited] = await Promise.all([
      listUsers(deps.db, ctx.tenantId),
      invitedUserIds(deps.db, ctx.tenantId),
    ]);
    const members = users.filter((u) => !invited.has(u.id));
    return inMemoryList(deps.keyRing, ctx, request, 'console-users', members.map(presentUser), [
      next('create', 'createConsoleUser'),
      next('roles', 'listRoles'),
      next('invitations', 'listConsoleInvitations'),
    ]);
  },
});
