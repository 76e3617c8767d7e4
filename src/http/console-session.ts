import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppEnv } from '../config.js';
import { AppError } from '../core/errors.js';
import type { Permission } from '../core/permissions.js';
import type { Scope } from '../core/scopes.js';
import type { RequestContext } from './context.js';

/** The console's session cookie: an opaque random token, stored only as its SHA-256 hash. */
export const CONSOLE_COOKIE = 'cak_console';
export const CSRF_HEADER = 'x-csrf-token';

/** A console session as the gate needs it. */
export interface ResolvedSession {
  sessionId: string;
  userId: string;
  tenantId: string;
  role: string;
  permissions: readonly Permission[];
}

/** Looks up console sessions (the team module implements it; the composition root wires it). */
export interface SessionResolver {
  /** The live session of a cookie token (extending its idle expiry), or null when unknown, expired or revoked. */
  resolve(token: string): Promise<ResolvedSession | null>;
}

/**
 * The CSRF token of a session: derived from the cookie's token (HMAC), so nothing more is stored
 * and a page that cannot read the cookie cannot compute it.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('cak-console-csrf').digest('base64url');
}

/** The cookie's value, or undefined when the request carries none. */
export function sessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== CONSOLE_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/** Over HTTPS, directly or behind a proxy that says so: the cookie is then `Secure`. */
const overHttps = (request: FastifyRequest) =>
  request.protocol === 'https' || request.headers['x-forwarded-proto'] === 'https';

function cookieAttributes(request: FastifyRequest, maxAgeSeconds: number): string {
  return `Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${overHttps(request) ? '; Secure' : ''}`;
}

export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  expiresAt: Date,
  now: Date,
) {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
  reply.header('set-cookie', `${CONSOLE_COOKIE}=${token}; ${cookieAttributes(request, maxAge)}`);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply) {
  reply.header('set-cookie', `${CONSOLE_COOKIE}=; ${cookieAttributes(request, 0)}`);
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Refuses a state-changing request whose X-CSRF-Token is not the session's (403 naming the header). */
export function checkCsrf(request: FastifyRequest, sessionToken: string): void {
  if (!STATE_CHANGING.has(request.method)) return;
  const sent = request.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || sent === '') {
    throw new AppError(
      'forbidden',
      'Missing X-CSRF-Token header: a console session sends its csrfToken on every write',
    );
  }
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const given = Buffer.from(sent);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AppError('forbidden', 'Wrong X-CSRF-Token header: send the csrfToken of this session');
  }
}

/** The API scopes a role's permissions stand for (what nextActions and MCP filter on). */
function scopesOf(permissions: readonly Permission[]): Scope[] {
  if (permissions.includes('settings.write')) return ['read', 'commerce', 'admin'];
  if (permissions.some((p) => p !== 'read' && p !== 'audit.read')) return ['read', 'commerce'];
  return ['read'];
}

/** Resolves the session cookie to the caller's context, or throws 401 (403 for a missing or wrong CSRF token). */
export async function authenticateSession(
  request: FastifyRequest,
  token: string,
  resolver: SessionResolver,
  environment: AppEnv,
): Promise<{ ctx: RequestContext; session: ResolvedSession }> {
  const session = await resolver.resolve(token);
  if (!session) {
    throw new AppError('unauthorized', 'The console session has expired or was signed out: sign in again');
  }
  checkCsrf(request, token);
  const ctx: RequestContext = {
    tenantId: session.tenantId,
    environment,
    keyId: null,
    userId: session.userId,
    scopes: scopesOf(session.permissions),
    rateTier: 'premium',
    requestId: request.id,
  };
  return { ctx, session };
}
