import { randomInt, randomUUID } from 'node:crypto';
import { createUserWithPassword, hashPassword } from '../../src/modules/team/index.js';
import type { TestApp } from '../harness.js';
import type { Method, RequestOptions } from './api.js';

/** A signed-in console session as a browser holds it: the cookie and the CSRF token. */
export interface ConsoleLogin {
  cookie: string;
  csrfToken: string;
  userId: string;
}

export const TEST_PASSWORD = 'correct horse battery staple';

// Hashing is slow on purpose: the fixtures' users share one hash of TEST_PASSWORD.
let testPasswordHash: Promise<string> | undefined;

/** A console user of the tenant with the password TEST_PASSWORD (no invitation round trip). */
export async function consoleUser(t: TestApp, tenantId: string, role: string) {
  testPasswordHash ??= hashPassword(TEST_PASSWORD);
  const email = `${role}-${randomUUID().slice(0, 8)}@example.com`;
  const passwordHash = await testPasswordHash;
  const user = await createUserWithPassword(
    t.deps.db,
    tenantId,
    { email, name: role, role, passwordHash },
    t.deps.clock.now(),
  );
  return { id: user.id, email, password: TEST_PASSWORD };
}

/**
 * A client address of its own for a test's failed sign-ins: failures are counted per address in
 * the database, which test files (and, on PostgreSQL, runs) share.
 */
export const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** The `cak_console=...` pair of a Set-Cookie header. */
export function cookieOf(setCookie: string | string[] | undefined): string {
  const header = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!header) throw new Error('no Set-Cookie in the answer');
  return header.split(';')[0] as string;
}

/** Signs in over HTTP and returns the session's cookie and CSRF token. */
export async function signIn(t: TestApp, email: string, password = TEST_PASSWORD): Promise<ConsoleLogin> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/console/session',
    payload: { email, password },
  });
  if (res.statusCode !== 200) throw new Error(`sign-in answered ${res.statusCode}: ${res.body}`);
  const { data } = res.json();
  return { cookie: cookieOf(res.headers['set-cookie']), csrfToken: data.csrfToken, userId: data.user.id };
}

/** A console user of `role` signed in. */
export async function signedIn(t: TestApp, tenantId: string, role: string): Promise<ConsoleLogin> {
  const user = await consoleUser(t, tenantId, role);
  return signIn(t, user.email, user.password);
}

/**
 * The API as the console calls it: the session cookie, and the CSRF token on writes (unless
 * `csrf: false`, or another token given).
 */
export function consoleApi(t: TestApp, login: ConsoleLogin, options: { csrf?: string | false } = {}) {
  const send = (method: Method, path: string, body?: unknown, request: RequestOptions = {}) => {
    const csrf = options.csrf === undefined ? login.csrfToken : options.csrf;
    return t.app.inject({
      method,
      url: `/api/v1${path}`,
      headers: {
        cookie: login.cookie,
        ...(csrf && method !== 'GET' ? { 'x-csrf-token': csrf } : {}),
        ...(request.idempotencyKey ? { 'idempotency-key': request.idempotencyKey } : {}),
        ...request.headers,
      },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  };
  return {
    get: (path: string, request?: RequestOptions) => send('GET', path, undefined, request),
    post: (path: string, body?: unknown, request?: RequestOptions) => send('POST', path, body, request),
    put: (path: string, body?: unknown, request?: RequestOptions) => send('PUT', path, body, request),
    patch: (path: string, body?: unknown, request?: RequestOptions) => send('PATCH', path, body, request),
    delete: (path: string, request?: RequestOptions) => send('DELETE', path, undefined, request),
    send,
  };
}
