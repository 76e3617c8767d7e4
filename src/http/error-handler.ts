import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from './db-errors.js';
import { AppError, type ErrorCode, type ErrorDetail } from './errors.js';
import type { TypedApp } from './types.js';

const DB_RETRY_AFTER_SECONDS = 5;

interface AjvLikeError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const PART_PREFIX: Record<string, string> = {
  body: '',
  querystring: 'query.',
  params: 'path.',
  headers: 'header.',
};

/** `/items/0/productId` in the body -> `items.0.productId`; query fields get a `query.` prefix. */
function validationDetail(part: string, e: AjvLikeError): ErrorDetail {
  const segments = e.instancePath.split('/').filter(Boolean);
  if (e.keyword === 'required') segments.push(String(e.params.missingProperty));
  if (e.keyword === 'additionalProperties') segments.push(String(e.params.additionalProperty));
  const field = (PART_PREFIX[part] ?? '') + segments.join('.');
  const message =
    e.keyword === 'additionalProperties'
      ? 'is not a known field'
      : e.keyword === 'required'
        ? 'is required'
        : e.keyword === 'enum'
          ? `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`
          : (e.message ?? 'is invalid');
  return { field: field || part, rule: e.keyword, message: `${field || part} ${message}` };
}

function fromFastifyError(err: FastifyError): AppError | undefined {
  if (err.validation) {
    const part = err.validationContext ?? 'body';
    const details = (err.validation as AjvLikeError[]).map((e) => validationDetail(part, e));
    // anyOf/oneOf add an umbrella error after the specific ones; keep the specific ones.
    const useful = details.filter((d) => d.rule !== 'anyOf' && d.rule !== 'oneOf');
    const list = useful.length > 0 ? useful : details;
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
  if (error.retryAfter !== undefined) reply.header('Retry-After', String(error.retryAfter));
  return reply.code(error.status).send({
    error: error.message,
    code: error.code,
    ...(error.details ? { details: error.details } : {}),
    requestId: request.id,
  });
}

/** The one error handler: every failure leaves as the documented error body. */
export function registerErrorHandling(app: TypedApp) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let error: AppError | undefined = err instanceof AppError ? err : fromFastifyError(err);
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
