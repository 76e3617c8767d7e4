import type { operations } from './generated/api.js';

/** The name of an operation of the API (its OpenAPI `operationId`). */
export type OperationId = keyof operations;

type Json<C> = C extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON request body of an operation: its exact shape, so a misspelled field is a type error. */
export type BodyOf<K extends OperationId> = Json<NonNullable<operations[K]['requestBody']>>;

/** The query parameters of an operation. */
export type QueryOf<K extends OperationId> = NonNullable<operations[K]['parameters']['query']>;

/** The path parameters of an operation, by name. */
export type PathOf<K extends OperationId> = NonNullable<operations[K]['parameters']['path']>;

type Responses<K extends OperationId> = operations[K]['responses'];
type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 204>;
type BodyOfResponse<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: Record<string, infer B> }
    ? B
    : undefined;

/** What a successful call returns: the 2xx body (the `{ data, nextActions }` envelope), undefined for a 204. */
export type ResultOf<K extends OperationId> = BodyOfResponse<Responses<K>[SuccessStatus<K>]>;

/** One item of a list operation's `data`. */
export type ListItemOf<K extends OperationId> = ResultOf<K> extends { data: (infer I)[] } ? I : never;

/** Per-call settings; each overrides the client's. */
export interface RequestOptions {
  /** The Idempotency-Key of a write (default: a random one, kept across this call's retries). */
  idempotencyKey?: string;
  /** Milliseconds one attempt may take, answer body included (default: the client's `timeout`). */
  timeout?: number;
  /** Retries after a network error, timeout, 429, 502 or 503 (default: the client's `maxRetries`). */
  maxRetries?: number;
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Query parameters, for the few operations that take both a body and a query. */
  query?: Record<string, unknown>;
}

/** How a resource method calls its operation: the generated table's rows (`generated/resources.ts`). */
export interface OperationSpec {
  /** Where the method sits: `['orders']` for `client.orders`, `['admin', 'products']` for `client.admin.products`. */
  group: readonly string[];
  /** The method's name in its group, e.g. `create`. */
  name: string;
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** The path parameters, in the order of the path: the method's leading arguments. */
  pathParams: readonly string[];
  /** What the argument after the path parameters is: the JSON body, the query, or nothing. */
  input: 'body' | 'query' | 'none';
  /** A list over cursors (`limit` and `cursor`): the method returns a `ListCall`. */
  list: boolean;
}
