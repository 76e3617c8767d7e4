import createFetchClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { ErrorBody } from './errors.js';
import type { components, operations, paths } from './generated/api.js';
import type { Resources } from './generated/resources.js';
import { createResources } from './resources.js';
import { createTransport, type TransportOptions } from './transport.js';

export {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  type ErrorBody,
  type ErrorDetail,
  errorFromResponse,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
} from './errors.js';
export type * from './generated/resources.js';
export type {
  BodyOf,
  ListItemOf,
  OperationId,
  PathOf,
  QueryOf,
  RequestOptions,
  ResultOf,
} from './operation-types.js';
export { DEFAULT_PAGE_SIZE, ListCall, type ListPage } from './pagination.js';
export { backoffMs, retryAfterMs } from './transport.js';
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookFailure,
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

export interface CommerceClientOptions extends TransportOptions {
  /** The service's base URL, e.g. `https://api.example.com` (no `/api/v1`: paths carry it). */
  baseUrl: string;
}

/** The result shape of every call: openapi-fetch's `{ data, error, response }`. */
export interface CallResult<T = unknown> {
  data?: T;
  error?: ErrorBody;
  response: Response;
}

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type PathOfMethod<M extends Method> = ClientPathsWithMethod<Client<paths>, M>;
type PathInit<P extends keyof paths, M extends Method> = MaybeOptionalInit<paths[P], M>;

/**
 * openapi-fetch's path call, with the init (and so the body) typed by the path alone rather than
 * inferred from the argument: a misspelled body field is then an error here too.
 */
type PathCall<M extends Method> = <P extends PathOfMethod<M>>(
  url: P,
  ...init: undefined extends PathInit<P, M> ? [init?: PathInit<P, M>] : [init: PathInit<P, M>]
) => Promise<
  FetchResponse<paths[P][M] & Record<string | number, unknown>, PathInit<P, M>, `${string}/${string}`>
>;

/** The path calls, strictly typed. */
interface PathCalls {
  GET: PathCall<'get'>;
  PUT: PathCall<'put'>;
  POST: PathCall<'post'>;
  DELETE: PathCall<'delete'>;
  PATCH: PathCall<'patch'>;
}

/**
 * The client: resource methods by group (`client.orders.create(body)`: they return the 2xx body and
 * throw an `ApiError` otherwise), openapi-fetch's path calls (`client.GET('/api/v1/orders/{id}', ...)`:
 * they return `{ data, error, response }`), and `followNextAction`. All of them share the key,
 * Idempotency-Keys, timeout and retries.
 */
export type CommerceClient = Omit<Client<paths>, keyof PathCalls> &
  PathCalls &
  Resources & {
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

/** The `nextActions` entry `rel` of an envelope, or undefined. */
export function findNextAction(response: Envelope | { data?: unknown }, rel: string): NextAction | undefined {
  const envelope = ('nextActions' in response ? response : (response as { data?: unknown }).data) as
    | Partial<Envelope>
    | undefined;
  return envelope?.nextActions?.find((a) => a.rel === rel);
}

export function createCommerceClient(options: CommerceClientOptions): CommerceClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetch = createTransport(options);
  const client = createFetchClient<paths>({ baseUrl, fetch: (request) => fetch(request) });
  const followNextAction: CommerceClient['followNextAction'] = async (response, rel, init = {}) => {
    const action = findNextAction(response, rel);
    if (!action) throw new Error(`The response has no nextAction "${rel}"`);
    if (action.allowed === false) {
      throw new Error(`The key may not follow "${rel}": it needs the "${action.requiredScope}" scope`);
    }
    const headers = new Headers();
    if (init.idempotencyKey) headers.set('idempotency-key', init.idempotencyKey);
    if (init.body !== undefined) headers.set('content-type', 'application/json');
    const url = new URL(action.href, `${baseUrl}/`);
    const res = await fetch(
      new Request(url, {
        method: action.method,
        headers,
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      }),
    );
    const text = await res.text();
    const body = text ? JSON.parse(text) : undefined;
    return res.ok ? { data: body, response: res } : { error: body as ErrorBody, response: res };
  };
  return Object.assign(client, createResources(baseUrl, fetch), { followNextAction }) as CommerceClient;
}
