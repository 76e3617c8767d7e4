import { Type } from 'typebox';
import { checkCsrf, clearSessionCookie } from '../../../http/console-session.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { ChangePasswordBody, ConsoleSessionSchema, RedeemLinkBody, SignInBody } from '../schemas.js';
import { changeOwnPassword, redeemLink, signIn, signOut } from '../sign-in.js';
import { currentSession, presentSession, startedResponse, TAGS } from './session-shared.js';

// The console's own routes: a browser calls them with its cookie, so they are not in the API
// document or the MCP tools (`public: false`); they need no API key (`scope: null`).

export const signInRoute = defineRoute({
  method: 'POST',
  path: '/console/session',
  operationId: 'signInConsole',
  summary: 'Sign in to the console',
  description:
    'Email and password of an active console user: answers the session and sets the HTTP-only `cak_console` cookie. ' +
    '401 `unauthorized` for a wrong email or password (one message for both) or a disabled user; 429 `rate_limited` ' +
    'after 5 failures per account or 20 per client address in 15 minutes.',
  tags: TAGS,
  scope: null,
  public: false,
  body: SignInBody,
  responses: {
    200: Envelope(ConsoleSessionSchema, 'The session; the cookie is set.'),
    ...errorResponses(401, 429),
  },
  handler: async (request, reply, deps) => {
    const started = await signIn(deps, { ...request.body, address: request.ip }, request.id);
    return startedResponse(request, reply, deps, started);
  },
});

export const redeemLinkRoute = defineRoute({
  method: 'POST',
  path: '/console/session/link',
  operationId: 'redeemConsoleLink',
  summary: 'Sign in with a one-time link',
  description:
    'Redeems the token of a first sign-in link, an invitation or a password reset and starts a session. An invitation ' +
    'or a reset needs `password` (at least 12 characters); a sign-in link sets one if given. 401 for a used or expired link.',
  tags: TAGS,
  scope: null,
  public: false,
  body: RedeemLinkBody,
  responses: {
    200: Envelope(ConsoleSessionSchema, 'The session; the cookie is set.'),
    ...errorResponses(401),
  },
  handler: async (request, reply, deps) => {
    const started = await redeemLink(deps, request.body, request.id);
    return startedResponse(request, reply, deps, started);
  },
});

export const getSessionRoute = defineRoute({
  method: 'GET',
  path: '/console/session',
  operationId: 'getConsoleSession',
  summary: 'The console session',
  description: 'The session of the `cak_console` cookie, with its CSRF token; 401 when not signed in.',
  tags: TAGS,
  scope: null,
  public: false,
  responses: { 200: Envelope(ConsoleSessionSchema, 'The session.'), ...errorResponses(401) },
  handler: async (request, reply, deps) => {
    const { token, session, user } = await currentSession(request, deps);
    reply.header('cache-control', 'no-store');
    return presentSession(deps, user, session, token);
  },
});

export const signOutRoute = defineRoute({
  method: 'DELETE',
  path: '/console/session',
  operationId: 'signOutConsole',
  summary: 'Sign out of the console',
  description: 'Ends the session and clears the cookie. Needs `X-CSRF-Token`.',
  tags: TAGS,
  scope: null,
  public: false,
  responses: {
    204: Type.Null({ description: 'Signed out; the cookie is cleared.' }),
    ...errorResponses(401, 403),
  },
  handler: async (request, reply, deps) => {
    const { token, session } = await currentSession(request, deps);
    checkCsrf(request, token);
    await signOut(deps, session, request.id);
    clearSessionCookie(request, reply);
    return reply.status(204).send();
  },
});

export const changePasswordRoute = defineRoute({
  method: 'POST',
  path: '/console/session/password',
  operationId: 'changeConsolePassword',
  summary: 'Change the console password',
  description:
    'Sets the signed-in user’s password (`currentPassword` required when one is set); the user’s other sessions end. ' +
    'Needs `X-CSRF-Token`.',
  tags: TAGS,
  scope: null,
  public: false,
  body: ChangePasswordBody,
  responses: {
    200: Envelope(ConsoleSessionSchema, 'The session, still signed in.'),
    ...errorResponses(401, 403),
  },
  handler: async (request, _reply, deps) => {
    const current = await currentSession(request, deps);
    checkCsrf(request, current.token);
    const user = await changeOwnPassword(deps, current, request.body, request.id);
    return presentSession(deps, user, current.session, current.token);
  },
});

export const sessionRoutes = [
  signInRoute,
  redeemLinkRoute,
  getSessionRoute,
  signOutRoute,
  changePasswordRoute,
];
