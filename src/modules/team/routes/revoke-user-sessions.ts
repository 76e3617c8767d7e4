import { Type } from 'typebox';
import { defineRoute } from '../../../http/declared-route.js';
import { errorResponses } from '../../../http/errors.js';
import { type Presented, respond } from '../../../http/operation.js';
import { revokeAllSessions } from '../operations.js';
import { UserParams } from '../schemas.js';
import { USER_TAGS } from './shared.js';

export const revokeUserSessionsRoute = defineRoute({
  method: 'DELETE',
  path: '/admin/users/:id/sessions',
  operationId: 'revokeConsoleUserSessions',
  summary: 'Sign a console user out everywhere',
  description: 'Ends every session of the user at once; the user can sign in again. 204 with no body.',
  tags: USER_TAGS,
  scope: 'admin',
  params: UserParams,
  responses: {
    204: Type.Null({ description: 'Every session ended; no body.' }),
    ...errorResponses(403, 404),
  },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => revokeAllSessions(deps, ctx, { id: request.params.id }, key),
      (): Presented => ({ status: 204, body: undefined }),
    ),
});
