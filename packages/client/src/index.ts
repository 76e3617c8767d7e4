import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/api.js';

export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from './webhooks.js';
export type { components, operations, paths };

/** One entry of a response's `nextActions`: what may be done next with the returned resource. */
export interface NextAction {
  rel: string;
  method: string;
  href: string;
  requiredScope?: string | null;
  allowed?: boolean;
}

/** The envelope of every resource response. */
export interface Envelope<T = unknown> {
  data: T;
  nextActions: NextAction[];
}

/** The error body of every error response. */
export type ApiError = components['schemas']['Error'];

export interface CommerceClientOptions {
  /** The service's base URL, e.g. `https://api.example.com` (no `/api/v1`: paths carry it). */
  baseUrl: string;
  /** `cak_live_...` or `cak_test_...`; sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** Retries of a 429 answer, each after its `Retry-After` (default 3; 0 turns retrying off). */
  maxRetries?: number;
  /** Longest wait honoured for one `Retry-After`, in ms (default 60 000); longer waits are not retried. */
  maxRetryDelayMs?: number;
  /** Adds a random `Idempotency-Key` to POST, PUT and PATCH requests that have none (default true). */
  idempotencyKeys?: boolean;
  /** A fetch implementation (default `globalThis.fetch`). */
  fetch?: (input: Request) => Promise<Response>;
  /** Waits between retries; tests replace it (default `setTimeout`). */
  sleep?: (ms: number) => Promise<void>;
}

/** The result shape of every call: openapi-fetch's `{ data, error, response }`. */
export interface CallResult<T = unknown> {
  data?: T;
  error?: ApiError;
  response: Response;
}

export type CommerceClient = Client<paths> & {
  /**
   * Follows the `nextActions` entry named `rel` of a response (an envelope, or a call's result
   * holding one): the same method and href, through the same auth, idempotency and retries.
   * Throws when the response has no such action or the key is not allowed to take it.
   */
  followNextAction<T = Envelope>(
    response: Envelope | CallResult<Envelope> | { data?: Envelope },
    rel: string,
    options?: { body?: unknown; idempotencyKey?: string },
  ): Promise<CallResult<T>>;
};

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Seconds (or an HTTP date) of a `Retry-After` header, as milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The `nextActions` entry `rel` of an envelope, or undefined. */
export function findNextAction(response: Envelope | { data?: unknown }, rel: string): NextAction | undefined {
  const envelope = ('nextActions' in response ? response : (response as { data?: unknown }).data) as
    | Partial<Envelope>
    | undefined;
  return envelope?.nextActions?.find((a) => a.rel === rel);
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that adds the key, gives every write an Idempotency-Key (kept across retries, so a
 * retried write cannot run twice) and retries 429 answers after their Retry-After.
 */
function commerceFetch(options: CommerceClientOptions): (input: Request) => Promise<Response> {
  const base = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const sleep = options.sleep ?? defaultSleep;
  const maxRetries = options.maxRetries ?? 3;
  const maxDelay = options.maxRetryDelayMs ?? 60_000;
  return async (input: Request) => {
    const request = new Request(input);
    request.headers.set('authorization', `Bearer ${options.apiKey}`);
    if (
      options.idempotencyKeys !== false &&
      WRITE_METHODS.has(request.method) &&
      !request.headers.has('idempotency-key')
    ) {
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
    for (let attempt = 0; ; attempt++) {
      const response = await base(request.clone());
      if (response.status !== 429 || attempt >= maxRetries) return response;
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? 1000 * 2 ** attempt;
      if (wait > maxDelay) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}

export function createCommerceClient(options: CommerceClientOptions): CommerceClient {
  const fetch = commerceFetch(options);
  const client = createFetchClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch });
  const followNextAction: CommerceClient['followNextAction'] = async (response, rel, init = {}) => {
    const action = findNextAction(response, rel);
    if (!action) throw new Error(`The response has no nextAction "${rel}"`);
    if (action.allowed === false) {
      throw new Error(`The key may not follow "${rel}": it needs the "${action.requiredScope}" scope`);
    }
    const headers = new Headers();
    if (init.idempotencyKey) headers.set('idempotency-key', init.idempotencyKey);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    const url = new URL(action.href, `${options.baseUrl.replace(/\/+$/, '')}/`);
    const res = await fetch(
      new Request(url, {
        method: action.method,
        headers,
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      }),
    );
    const text = await res.text();
    const body = text ? JSON.parse(text) : undefined;
    return res.ok ? { data: body, response: res } : { error: body as ApiError, response: res };
  };
  return Object.assign(client, { followNextAction });
}
