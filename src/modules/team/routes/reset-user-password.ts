import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { issuePasswordReset } from '../operations.js';
import { LinkSchema, UserParams } from '../schemas.js';
import { linkResponse, USER_TAGS, userActions } from './shared.js';

export const resetUserPasswordRoute = defineRoute({
  method: 'POST',
  path: '/admin/users/:id/password-reset',
  operationId: 'resetConsoleUserPassword',
  summary: 'Issue a password reset link',
  description:
    'A one-time link (24 h), shown only in this response, that lets the user set a new password; using it ends the ' +
    'user’s other sessions. An earlier unused reset link stops working. 409 `conflict` for a disabled user.',
  tags: USER_TAGS,
  scope: 'admin',
  params: UserParams,
  // The link is no resource of its own: it links to the user it resets.
  createdAt: [{ collection: '/api/v1/admin/users', id: '$request.path.id' }],
  responses: {
    201: Envelope(LinkSchema, 'The reset link (shown only now).'),
    ...errorResponses(403, 404, 409),
  },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => issuePasswordReset(deps, ctx, { id: request.params.id }, key),
      linkResponse(deps.config.publicBaseUrl, userActions({ id: request.params.id })),
    ),
});
