import { ConnectionError, TimeoutError } from './errors.js';

/** The client-level settings of every request. */
export interface TransportOptions {
  /** `cak_live_...` or `cak_test_...`; sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /**
   * Retries after a network error, a timeout, a 429, 502 or 503 (default 3; 0 turns retrying off).
   * Each waits the answer's `Retry-After`, or an exponential backoff with jitter.
   */
  maxRetries?: number;
  /** Milliseconds one attempt may take, answer body included (default 60 000). */
  timeout?: number;
  /** Longest wait honoured for one `Retry-After`, in ms (default 60 000); longer waits are not retried. */
  maxRetryDelayMs?: number;
  /** Adds a random `Idempotency-Key` to POST, PUT and PATCH requests that have none (default true). */
  idempotencyKeys?: boolean;
  /** A fetch implementation (default `globalThis.fetch`). */
  fetch?: (input: Request) => Promise<Response>;
  /** Waits between retries; tests replace it (default `setTimeout`). */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for the backoff's jitter (default `Math.random`). */
  random?: () => number;
}

/** Per-request overrides of the client's settings. */
export interface AttemptOptions {
  maxRetries?: number | undefined;
  timeout?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** Sends one request with the client's auth, idempotency, timeout and retries. */
export type Transport = (request: Request, options?: AttemptOptions) => Promise<Response>;

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const RETRIED_STATUSES = new Set([429, 502, 503]);
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;

/** Seconds (or an HTTP date) of a `Retry-After` header, as milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry number `attempt + 1`: 500 ms doubling per attempt up to 8 s, of which a
 * random half is taken off (so clients that failed together do not retry together).
 */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One attempt: the answer read whole within the timeout, so a stalled body is a timeout too and
 * a failure half-way through can be retried. Network failures and timeouts become
 * `ConnectionError` and `TimeoutError`; the caller's own abort is passed on as it is.
 */
async function attempt(
  send: (input: Request) => Promise<Response>,
  request: Request,
  timeout: number,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const timer = AbortSignal.timeout(timeout);
  const combined = signal ? AbortSignal.any([signal, timer]) : timer;
  try {
    const response = await send(new Request(request, { signal: combined }));
    const body = NULL_BODY_STATUSES.has(response.status) ? null : await response.arrayBuffer();
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  } catch (err) {
    if (signal?.aborted) throw signal.reason ?? err;
    const where = `${request.method} ${new URL(request.url).pathname}`;
    if (timer.aborted) {
      throw new TimeoutError(`${where}: no answer within ${timeout} ms`, { code: 'timeout', cause: err });
    }
    const reason = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new ConnectionError(`${where}: the connection failed (${reason})`, {
      code: 'connection_error',
      cause: err,
    });
  }
}

/**
 * The fetch every call goes through. It adds the key and gives every write an Idempotency-Key,
 * kept across retries so a retried write runs at most once. It retries network errors, timeouts,
 * 429, 502 and 503: after `Retry-After` when the answer has one, otherwise after `backoffMs`.
 */
export function createTransport(options: TransportOptions): Transport {
  const send = options.fetch ?? ((input: Request) => globalThis.fetch(input));
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const maxDelay = options.maxRetryDelayMs ?? 60_000;
  return async (input, perCall = {}) => {
    const maxRetries = perCall.maxRetries ?? options.maxRetries ?? 3;
    const timeout = perCall.timeout ?? options.timeout ?? 60_000;
    const request = new Request(input);
    request.headers.set('authorization', `Bearer ${options.apiKey}`);
    if (
      options.idempotencyKeys !== false &&
      WRITE_METHODS.has(request.method) &&
      !request.headers.has('idempotency-key')
    ) {
      request.headers.set('idempotency-key', crypto.randomUUID());
    }
    for (let tries = 0; ; tries++) {
      let response: Response;
      try {
        response = await attempt(send, request.clone(), timeout, perCall.signal);
      } catch (err) {
        if (!(err instanceof ConnectionError) || tries >= maxRetries) throw err;
        await sleep(backoffMs(tries, random));
        continue;
      }
      if (!RETRIED_STATUSES.has(response.status) || tries >= maxRetries) return response;
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(tries, random);
      if (wait > maxDelay) return response;
      await sleep(wait);
    }
  };
}
