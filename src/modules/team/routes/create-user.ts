import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { inviteUser } from '../operations.js';
import { CreateUserBody, InvitedUserSchema } from '../schemas.js';
import { invitedResponse, USER_TAGS } from './shared.js';

export const createUserRoute = defineRoute({
  method: 'POST',
  path: '/admin/users',
  operationId: 'createConsoleUser',
  summary: 'Invite a console user',
  description:
    'Adds a person to this tenant’s console with a role and answers a one-time invitation link (7 days), shown only ' +
    'in this response: send it to them; opening it lets them set a password and signs them in. 409 `conflict` when ' +
    'the email already belongs to a console user. Only an owner (or an `admin` API key) may invite an owner.',
  tags: USER_TAGS,
  scope: 'admin',
  body: CreateUserBody,
  responses: {
    201: Envelope(InvitedUserSchema, 'The user and its invitation link (shown only now).'),
    ...errorResponses(403, 409),
  },
  createdAt: [{ collection: '/api/v1/admin/users', id: '$response.body#/data/user/id' }],
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => inviteUser(deps, ctx, request.body, key),
      invitedResponse(deps.config.publicBaseUrl),
    ),
});
