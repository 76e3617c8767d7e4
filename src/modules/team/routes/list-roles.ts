import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { next } from '../../../http/envelope.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { ROLE_DEFINITIONS } from '../roles.js';
import { RoleSchema } from '../schemas.js';
import { USER_TAGS } from './shared.js';

export const listRolesRoute = defineRoute({
  method: 'GET',
  path: '/admin/roles',
  operationId: 'listRoles',
  summary: 'List console roles',
  description:
    'The roles a console user can have and the permissions of each (every console user may read it). API keys keep ' +
    'their scopes; a console user’s role decides what its session may do (a refused call is 403 naming the role and ' +
    `the permission). ${LIST_PAGING.text}`,
  tags: USER_TAGS,
  scope: 'admin',
  query: PageQuery,
  responses: { 200: ListEnvelope(RoleSchema, 'Every role, most powerful first.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const roles = ROLE_DEFINITIONS.map((r) => ({ ...r, permissions: [...r.permissions] }));
    return inMemoryList(
      deps.keyRing,
      ctx,
      request,
      'console-roles',
      roles,
      [next('users', 'listConsoleUsers')],
      (role) => role.name,
    );
  },
});
