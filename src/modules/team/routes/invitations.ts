import { Type } from 'typebox';
import { LIST_PAGING } from '../../../core/agent-guide.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { type Presented, respond } from '../../../http/operation.js';
import { inMemoryList, ListEnvelope, PageQuery } from '../../../http/paging.js';
import { pendingInvitations, presentInvitation, resendInvitation, revokeInvitation } from '../invitations.js';
import { InvitationParams, InvitationSchema, LinkSchema } from '../schemas.js';
import { linkResponse, USER_TAGS } from './shared.js';

const invitationActions = (id: string) => [
  next('resend', 'resendConsoleInvitation', { id }),
  next('revoke', 'revokeConsoleInvitation', { id }),
  next('user', 'getConsoleUser', { id }),
];

export const listInvitationsRoute = defineRoute({
  method: 'GET',
  path: '/admin/invitations',
  operationId: 'listConsoleInvitations',
  summary: 'List pending invitations',
  description:
    'People invited to this tenant’s console (POST /admin/users) who have not accepted yet, newest first: ' +
    '`pending`, or `expired` when the link ran out (resend it). They are not in GET /admin/users until they ' +
    `accept. ${LIST_PAGING.text}`,
  tags: USER_TAGS,
  scope: 'admin',
  query: PageQuery,
  responses: { 200: ListEnvelope(InvitationSchema, 'The pending invitations, newest first.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const now = deps.clock.now();
    const invitations = await pendingInvitations(deps.db, ctx.tenantId);
    return inMemoryList(
      deps.keyRing,
      ctx,
      request,
      'console-invitations',
      invitations.map((i) => presentInvitation(i, now)),
      [next('invite', 'createConsoleUser'), next('users', 'listConsoleUsers')],
    );
  },
});

export const resendInvitationRoute = defineRoute({
  method: 'POST',
  path: '/admin/invitations/:id/resend',
  operationId: 'resendConsoleInvitation',
  summary: 'Resend an invitation',
  description:
    'A new one-time invitation link (7 days), shown only in this response; the earlier links of the invitation ' +
    'stop working. 404 when the id is no user of this tenant; 409 `conflict` when the user has no pending ' +
    'invitation (it accepted: a password reset gives it a link); 403 when an admin resends an owner’s.',
  tags: USER_TAGS,
  scope: 'admin',
  params: InvitationParams,
  // The link is no resource of its own: it links to the user it invites.
  createdAt: [{ collection: '/api/v1/admin/users', id: '$request.path.id' }],
  responses: {
    201: Envelope(LinkSchema, 'The new invitation link (shown only now).'),
    ...errorResponses(403, 404, 409),
  },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => resendInvitation(deps, ctx, { id: request.params.id }, key),
      linkResponse(deps.config.publicBaseUrl, invitationActions(request.params.id)),
    ),
});

export const revokeInvitationRoute = defineRoute({
  method: 'DELETE',
  path: '/admin/invitations/:id',
  operationId: 'revokeConsoleInvitation',
  summary: 'Revoke an invitation',
  description:
    'The invitation’s link stops working and the invited person, who never signed in, leaves the team (the ' +
    'address may be invited again). 204 with no body. 404 when the id is no user of this tenant; 409 ' +
    '`conflict` when it has no pending invitation (disable an active user instead).',
  tags: USER_TAGS,
  scope: 'admin',
  params: InvitationParams,
  responses: {
    204: Type.Null({ description: 'Revoked; no body.' }),
    ...errorResponses(403, 404, 409),
  },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => revokeInvitation(deps, ctx, { id: request.params.id }, key),
      (): Presented => ({ status: 204, body: undefined }),
    ),
});

export const invitationRoutes = [listInvitationsRoute, resendInvitationRoute, revokeInvitationRoute];
