import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { BillingUnavailableError } from '../billing/adapter.js';
import { AppError, type ErrorCode, type ErrorDetail } from '../core/errors.js';
import { isDatabaseUnavailable, isPoolExhausted } from './db-errors.js';
import { nextActionsFor } from './envelope.js';
import { protocolOf } from './protocol-edge.js';
import type { TypedApp } from './types.js';
import { type AjvLikeError, validationDetails } from './validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The code of the error the request was answered with (logs and metrics read it), else null. */
    errorCode: ErrorCode | null;
    /** Its message (the recent-errors view reads it), else null. */
    errorMessage: string | null;
  }
}

const DB_RETRY_AFTER_SECONDS = 5;
const OVERLOADED_RETRY_AFTER_SECONDS = 1;

function fromFastifyError(err: FastifyError): AppError | undefined {
  if (err.validation) {
    const part = err.validationContext ?? 'body';
    const list = validationDetails(part, err.validation as AjvLikeError[]);
    return new AppError(
      'validation_failed',
      `Validation failed: ${list.map((d) => d.message).join('; ')}`,
      list,
    );
  }
  const status = err.statusCode ?? 500;
  if (status === 413) return new AppError('payload_too_large', 'Request body is larger than the limit');
  if (status === 415) {
    return new AppError(
      'unsupported_media_type',
      'Request bodies must be sent with Content-Type: application/json',
    );
  }
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) {
    return new AppError('validation_failed', 'Request body is not valid JSON', [
      { field: 'body', rule: 'json', message: 'body is not valid JSON' },
    ]);
  }
  if (status >= 400 && status < 500) {
    const code: ErrorCode = status === 404 ? 'not_found' : 'validation_failed';
    return new AppError(code, err.message, [
      { field: 'body', rule: err.code ?? 'request', message: err.message },
    ]);
  }
  return undefined;
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: AppError) {
  request.errorCode = error.code;
  request.errorMessage = error.message;
  // Also on errors the router raises before any hook runs.
  reply.header('X-Request-Id', request.id);
  if (error.retryAfter !== undefined) reply.header('Retry-After', String(error.retryAfter));
  const protocol = protocolOf(request);
  if (protocol) {
    const answer = protocol.renderError(error, request);
    protocol.answerHeaders?.(request, reply);
    return reply.code(answer.status).send(answer.body);
  }
  // RFC 6750/9728: a 401 says how to authenticate (src/http/protected-resource.ts).
  if (error.status === 401 && reply.server.authChallenge)
    reply.header('WWW-Authenticate', reply.server.authChallenge);
  return reply.code(error.status).send(errorBody(error, request));
}

/**
 * The MCP tool argument a request location comes from (src/mcp/tools.ts: path, query and body
 * fields at the top level by name, the Idempotency-Key as `idempotencyKey`); none for other
 * headers, the URL itself or the body as a whole.
 */
function argumentOf(field: string): string | undefined {
  if (field === 'header.idempotency-key') return 'idempotencyKey';
  if (field.startsWith('header.') || field === 'path' || field === 'query') return undefined;
  if (field.startsWith('path.') || field.startsWith('query.')) return field.slice(field.indexOf('.') + 1);
  // Body fields are top-level tool arguments too (nested ones keep their path below it).
  return field === 'body' ? undefined : field;
}

const withArgument = (d: ErrorDetail): ErrorDetail => {
  const argument = d.field ? argumentOf(d.field) : undefined;
  return argument ? { ...d, argument } : d;
};

/**
 * The error body: message, code, details, the request id, and, where they exist, how long to
 * wait (`retryAfterSeconds`, as the Retry-After header says) and what to do instead (`nextActions`).
 */
export function errorBody(error: AppError, request: FastifyRequest) {
  const details = error.code === 'validation_failed' ? error.details?.map(withArgument) : error.details;
  return {
    error: error.message,
    code: error.code,
    ...(details ? { details } : {}),
    ...(error.retryAfter !== undefined ? { retryAfterSeconds: error.retryAfter } : {}),
    ...(error.recovery?.length ? { nextActions: nextActionsFor(request.ctx, error.recovery) } : {}),
    requestId: request.id,
  };
}

/** The one error handler: every failure leaves as the documented error body. */
export function registerErrorHandling(app: TypedApp) {
  app.decorateRequest('errorCode', null);
  app.decorateRequest('errorMessage', null);
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let error: AppError | undefined = err instanceof AppError ? err : fromFastifyError(err);
    if (!error && (err as unknown) instanceof BillingUnavailableError) {
      request.log.error({ err }, 'billing system unavailable');
      error = new AppError(
        'billing_unavailable',
        'The billing system is unavailable; retry shortly',
        undefined,
        5,
      );
    }
    if (!error && isPoolExhausted(err)) {
      request.log.warn('database pool busy for the whole wait');
      error = new AppError(
        'overloaded',
        'The service is busy: every database connection stayed in use for the whole wait; retry shortly',
        undefined,
        OVERLOADED_RETRY_AFTER_SECONDS,
      );
    }
    if (!error && isDatabaseUnavailable(err)) {
      request.log.error({ err }, 'database unavailable');
      error = new AppError(
        'service_unavailable',
        'The database is unreachable; retry shortly',
        undefined,
        DB_RETRY_AFTER_SECONDS,
      );
    }
    if (!error) {
      request.log.error({ err }, 'unhandled error');
      error = new AppError('internal', 'Internal server error');
    }
    return sendError(reply, request, error);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      request,
      new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`),
    ),
  );
}
