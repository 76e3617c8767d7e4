import type { components } from './generated/api.js';

/** The error body of every error response: `{ error, code, details?, retryAfterSeconds?, nextActions?, requestId }`. */
export type ErrorBody = components['schemas']['Error'];
export type ErrorDetail = components['schemas']['ErrorDetail'];
export type ErrorNextAction = components['schemas']['NextAction'];

interface ApiErrorFields {
  status?: number | undefined;
  code: string;
  details?: ErrorDetail[] | undefined;
  requestId?: string | undefined;
  nextActions?: ErrorNextAction[] | undefined;
  retryAfterSeconds?: number | undefined;
  headers?: Headers | undefined;
  body?: unknown;
  cause?: unknown;
}

/**
 * A call that did not succeed. Thrown by the resource methods (`client.orders.create(...)`); its
 * subclasses say which family: catch `NotFoundError`, `ConflictError`, ... or `ApiError` for all.
 */
export class ApiError extends Error {
  /** The HTTP status; undefined when no answer arrived (`ConnectionError`, `TimeoutError`). */
  readonly status: number | undefined;
  /** The stable machine-readable code of the error body (e.g. `not_found`, `validation_failed`). */
  readonly code: string;
  /** What was wrong, field by field (`field`, `rule`, `message`); empty when the body has none. */
  readonly details: ErrorDetail[];
  /** The request id (body `requestId` or `X-Request-Id`): quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** How to recover, where the service offers a way (e.g. `getAccount` of the account holding a conflict). */
  readonly nextActions: ErrorNextAction[];
  /** Seconds to wait before retrying, when the service said (`Retry-After`). */
  readonly retryAfterSeconds: number | undefined;
  /** The response headers; undefined without a response. */
  readonly headers: Headers | undefined;
  /** The parsed response body as received (the error body, or text from something in between). */
  readonly body: unknown;

  constructor(message: string, fields: ApiErrorFields) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = new.target.name;
    this.status = fields.status;
    this.code = fields.code;
    this.details = fields.details ?? [];
    this.requestId = fields.requestId;
    this.nextActions = fields.nextActions ?? [];
    this.retryAfterSeconds = fields.retryAfterSeconds;
    this.headers = fields.headers;
    this.body = fields.body;
  }
}

/** 400, 422 and the other 4xx not named below: the request is wrong; `details` names the field and rule. */
export class InvalidRequestError extends ApiError {}
/** 401: the key is missing, malformed, unknown, revoked or of the other environment. */
export class AuthenticationError extends ApiError {}
/** 403: the key lacks the scope, or a policy blocks the operation. */
export class PermissionError extends ApiError {}
/** 404: no such resource in this tenant. */
export class NotFoundError extends ApiError {}
/** 409: conflicts with the resource's current state; `nextActions` often says what to do instead. */
export class ConflictError extends ApiError {}
/** 429: over the key's rate limit after the retries; `retryAfterSeconds` says when to come back. */
export class RateLimitError extends ApiError {}
/** 5xx: the service or something it depends on failed. */
export class ServerError extends ApiError {}
/** No answer: the connection failed (refused, reset, DNS). The call may be retried with the same Idempotency-Key. */
export class ConnectionError extends ApiError {}
/** No answer within the `timeout`. The call may have run: retry with the same Idempotency-Key. */
export class TimeoutError extends ConnectionError {}

function errorClassOf(status: number): new (message: string, fields: ApiErrorFields) => ApiError {
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 429) return RateLimitError;
  if (status >= 500) return ServerError;
  return InvalidRequestError;
}

function isErrorBody(body: unknown): body is ErrorBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as ErrorBody).code === 'string' &&
    typeof (body as ErrorBody).error === 'string'
  );
}

/**
 * The error for a non-2xx answer: our error body's fields when it is one; otherwise (a proxy's
 * page, an empty body) a code `http_<status>` and the text as the message.
 */
export function errorFromResponse(response: Response, body: unknown): ApiError {
  const ErrorClass = errorClassOf(response.status);
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  const common = {
    status: response.status,
    headers: response.headers,
    body,
    retryAfterSeconds: Number.isFinite(retryAfter) ? retryAfter : undefined,
  };
  if (!isErrorBody(body)) {
    const text = typeof body === 'string' && body.trim() !== '' ? `: ${body.trim().slice(0, 200)}` : '';
    return new ErrorClass(`HTTP ${response.status}${text}`, {
      ...common,
      code: `http_${response.status}`,
      requestId,
    });
  }
  return new ErrorClass(body.error, {
    ...common,
    code: body.code,
    details: body.details,
    requestId: body.requestId ?? requestId,
    nextActions: body.nextActions,
    retryAfterSeconds: body.retryAfterSeconds ?? common.retryAfterSeconds,
  });
}
