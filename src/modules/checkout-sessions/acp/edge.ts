import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorDetail } from '../../../core/errors.js';
import { bodyFieldPath } from './json-path.js';
import { ACP_SUPPORTED_VERSIONS } from './schema-parts.js';

// The ACP edge of our routes (src/http/protocol-edge.ts describes the contract): the headers ACP
// requires (API-Version always, Idempotency-Key on POST), the headers it echoes, and every
// refusal as its flat Error with a JSONPath `param`. Operations, idempotency and limits are ours.

export interface AcpError {
  type: 'invalid_request' | 'rate_limit_exceeded' | 'processing_error' | 'service_unavailable';
  code: string;
  message: string;
  param?: string;
  supported_versions?: string[];
}

const VERSION_FIELD = 'header.api-version';
const KEY_FIELD = 'header.idempotency-key';

const headerOf = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

/** The version the request speaks, or the refusal ACP names (400 with supported_versions). */
function checkVersion(request: FastifyRequest) {
  const version = headerOf(request, 'api-version')?.trim();
  const supported = ACP_SUPPORTED_VERSIONS.join(', ');
  if (!version) {
    const message = `The API-Version header is required; send one of: ${supported}`;
    throw new AppError('validation_failed', message, [{ field: VERSION_FIELD, rule: 'required', message }]);
  }
  if (!(ACP_SUPPORTED_VERSIONS as readonly string[]).includes(version)) {
    const message = `API-Version ${version.slice(0, 40)} is not supported; send one of: ${supported}`;
    throw new AppError('validation_failed', message, [{ field: VERSION_FIELD, rule: 'enum', message }]);
  }
}

function checkIdempotencyKey(request: FastifyRequest) {
  if (request.method !== 'POST' || headerOf(request, 'idempotency-key') !== undefined) return;
  const message = 'The Idempotency-Key header is required on every POST request';
  throw new AppError('validation_failed', message, [{ field: KEY_FIELD, rule: 'required', message }]);
}

/** The code of a refusal of the request's shape, and where it is. */
function validationError(details: readonly ErrorDetail[], delegate: boolean): Omit<AcpError, 'message'> {
  const first = details[0];
  if (first?.field === VERSION_FIELD)
    return {
      type: 'invalid_request',
      code: first.rule === 'required' ? 'missing_api_version' : 'unsupported_api_version',
      supported_versions: [...ACP_SUPPORTED_VERSIONS].reverse(),
    };
  if (first?.field === KEY_FIELD && first.rule === 'required')
    return { type: 'invalid_request', code: 'idempotency_key_required' };
  const param = bodyFieldPath(first?.field);
  const code = delegate && first?.field?.startsWith('payment_method') ? 'invalid_card' : undefined;
  return {
    type: 'invalid_request',
    code: code ?? (first?.rule === 'required' ? 'missing' : 'invalid'),
    ...(param ? { param } : {}),
  };
}

export interface AcpEdgeOptions {
  /** The status of checkout_session_closed: 405 on cancel (ACP), 409 elsewhere. */
  closedStatus?: number;
  /** delegate_payment's error codes: `invalid_card`, `rate_limit_exceeded`. */
  delegate?: boolean;
}

/** Where a payment refusal points: the handler when it is the handler, else the token. */
const paymentParam = (details: readonly ErrorDetail[] | undefined) =>
  details?.[0]?.field === 'payment.handlerId'
    ? '$.payment_data.handler_id'
    : '$.payment_data.instrument.credential.token';

/** Our error as ACP's: its status (which may differ) and flat body. */
export function acpError(error: AppError, options: AcpEdgeOptions = {}): { status: number; body: AcpError } {
  const { message } = error;
  const answer = (status: number, rest: Omit<AcpError, 'message'>) => ({
    status,
    body: { ...rest, message },
  });
  switch (error.code) {
    case 'validation_failed':
      return answer(400, validationError(error.details ?? [], options.delegate ?? false));
    case 'checkout_session_closed':
      return answer(options.closedStatus ?? error.status, { type: 'invalid_request', code: error.code });
    case 'payment_token_invalid':
      return answer(400, { type: 'invalid_request', code: error.code, param: paymentParam(error.details) });
    case 'rate_limited':
      return options.delegate
        ? answer(429, { type: 'rate_limit_exceeded', code: 'too_many_requests' })
        : answer(429, { type: 'invalid_request', code: 'rate_limited' });
  }
  if (error.status >= 500) {
    const unavailable = error.status === 502 || error.status === 503;
    return answer(error.status, {
      type: unavailable ? 'service_unavailable' : 'processing_error',
      code: error.code,
    });
  }
  return answer(error.status, { type: 'invalid_request', code: error.code });
}

/**
 * The ACP edge of a route. `checkRequest` runs before validation (a refusal of a missing header
 * comes first); `answerHeaders` on every answer: the Idempotency-Key echoed on POST, Request-Id
 * echoed, `Idempotent-Replayed: true` on a replay (next to our `X-Idempotency-Replayed`).
 */
export function acpEdge(options: AcpEdgeOptions = {}) {
  return {
    name: 'acp',
    renderError: (error: AppError) => acpError(error, options),
    checkRequest(request: FastifyRequest) {
      checkVersion(request);
      checkIdempotencyKey(request);
      // A POST without a body (cancel takes an optional one) reads as {}.
      if (request.method === 'POST' && request.body === undefined) request.body = {};
    },
    answerHeaders(request: FastifyRequest, reply: FastifyReply) {
      const key = headerOf(request, 'idempotency-key');
      if (request.method === 'POST' && key) reply.header('Idempotency-Key', key);
      const requestId = headerOf(request, 'request-id');
      if (requestId && requestId.length <= 255) reply.header('Request-Id', requestId);
      if (reply.getHeader('x-idempotency-replayed') === 'true') reply.header('Idempotent-Replayed', 'true');
    },
  };
}
