import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../core/errors.js';
import { csrfTokenFor, sessionCookie, setSessionCookie } from '../../../http/console-session.js';
import type { Deps } from '../../../http/deps.js';
import { getTenant } from '../../tenants/index.js';
import { permissionsOf } from '../roles.js';
import type { ConsoleUserRow, SessionRow } from '../service.js';
import { liveSession, sessionExpiry } from '../service.js';
import type { StartedSession } from '../sign-in.js';

export const TAGS = ['Console sessions'];

/** The cookie's live session and its user, or 401. */
export async function currentSession(request: FastifyRequest, deps: Deps) {
  const token = sessionCookie(request);
  const live = token ? await liveSession(deps.db, token, deps.clock.now()) : undefined;
  if (!token || !live)
    throw new AppError('unauthorized', 'Not signed in to the console, or the session has ended');
  return { token, ...live };
}

/** The ConsoleSession body of a session. */
export async function presentSession(deps: Deps, user: ConsoleUserRow, session: SessionRow, token: string) {
  const tenant = await getTenant(deps.db, user.tenantId);
  return {
    data: {
      user: { id: user.id, email: user.email, name: user.name, role: user.role, status: user.status },
      tenant: { id: user.tenantId, name: tenant?.name ?? '', environment: deps.config.appEnv },
      csrfToken: csrfTokenFor(token),
      expiresAt: sessionExpiry(session).toISOString(),
      permissions: [...permissionsOf(user.role)],
    },
    nextActions: [],
  };
}

/** A session just started: its cookie set, its body answered. */
export async function startedResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: Deps,
  started: StartedSession,
) {
  setSessionCookie(request, reply, started.token, started.session.expiresAt, deps.clock.now());
  reply.header('cache-control', 'no-store');
  return presentSession(deps, started.user, started.session, started.token);
}
