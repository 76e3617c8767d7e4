import type { LightMyRequestResponse } from 'fastify';
import { bearer, type TestApp } from '../harness.js';

/** What a request answers: Fastify's injected response (`statusCode`, `json()`, `headers`, `body`). */
export type ApiResponse = LightMyRequestResponse;

export interface RequestOptions {
  /** Sent as the Idempotency-Key header. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * The API as one caller sees it: requests to `/api/v1<path>` with `key` as the bearer token
 * (none when `key` is null). The one client the tests share instead of a `post`/`get` each.
 *
 *   const shop = api(t, tenant.keys.commerce);
 *   const res = await shop.post('/orders', { lines }, { idempotencyKey: 'k1' });
 *   expect(res.statusCode).toBe(201);
 */
export function api(t: TestApp, key: string | null) {
  const send = (method: Method, path: string, body?: unknown, options: RequestOptions = {}) =>
    t.app.inject({
      method,
      url: `/api/v1${path}`,
      headers: {
        ...(key ? bearer(key) : {}),
        ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
        ...options.headers,
      },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  return {
    get: (path: string, options?: RequestOptions) => send('GET', path, undefined, options),
    post: (path: string, body?: unknown, options?: RequestOptions) => send('POST', path, body, options),
    put: (path: string, body?: unknown, options?: RequestOptions) => send('PUT', path, body, options),
    patch: (path: string, body?: unknown, options?: RequestOptions) => send('PATCH', path, body, options),
    delete: (path: string, options?: RequestOptions) => send('DELETE', path, undefined, options),
    /** Any method, for tables of cases that vary it. */
    send,
  };
}

export type Api = ReturnType<typeof api>;
