import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { updateUser } from '../operations.js';
import { ConsoleUserSchema, UpdateUserBody, UserParams } from '../schemas.js';
import { USER_TAGS, userResponse } from './shared.js';

export const updateUserRoute = defineRoute({
  method: 'PATCH',
  path: '/admin/users/:id',
  operationId: 'updateConsoleUser',
  summary: 'Change a console user',
  description:
    'Changes the role, status or name. `status: disabled` ends every session of the user at once and refuses its ' +
    'sign-ins. 409 `conflict` when it would leave the tenant without an active owner; 403 when an admin changes an ' +
    'owner or makes one.',
  tags: USER_TAGS,
  scope: 'admin',
  params: UserParams,
  body: UpdateUserBody,
  responses: { 200: Envelope(ConsoleUserSchema, 'The user, changed.'), ...errorResponses(403, 404, 409) },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => updateUser(deps, ctx, { id: request.params.id, ...request.body }, key),
      userResponse(200),
    ),
});
