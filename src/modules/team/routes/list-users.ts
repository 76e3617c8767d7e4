import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { ConsoleUserSchema } from '../schemas.js';
import { listUsers, presentUser } from '../service.js';
import { USER_TAGS } from './shared.js';

export const listUsersRoute = defineRoute({
  method: 'GET',
  path: '/admin/users',
  operationId: 'listConsoleUsers',
  summary: 'List console users',
  description: `The people who sign in to this tenant's console, newest first, with their role and status. ${LIST_PAGING.text}`,
  tags: USER_TAGS,
  scope: 'admin',
  query: PageQuery,
  responses: { 200: ListEnvelope(ConsoleUserSchema, 'The tenant’s console users, newest first.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const users = await listUsers(deps.db, ctx.tenantId);
    return inMemoryList(deps.keyRing, ctx, request, 'console-users', users.map(presentUser), [
      next('create', 'createConsoleUser'),
      next('roles', 'listRoles'),
    ]);
  },
});
