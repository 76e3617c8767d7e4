import { notFound } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { ConsoleUserSchema, UserParams } from '../schemas.js';
import { getUser, presentUser } from '../service.js';
import { USER_TAGS, userActions } from './shared.js';

export const getUserRoute = defineRoute({
  method: 'GET',
  path: '/admin/users/:id',
  operationId: 'getConsoleUser',
  summary: 'Get a console user',
  description: 'One console user of this tenant. 404 when the id is not a user of this tenant.',
  tags: USER_TAGS,
  scope: 'admin',
  params: UserParams,
  responses: { 200: Envelope(ConsoleUserSchema, 'The user.'), ...errorResponses(404) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const user = await getUser(deps.db, ctx.tenantId, request.params.id);
    if (!user) throw notFound('Console user');
    return envelope(ctx, presentUser(user), userActions(user));
  },
});
