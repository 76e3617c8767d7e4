import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../core/errors.js';
import type { Metrics } from '../observability/metrics.js';
import type { RequestErrorLog } from '../observability/request-errors.js';
import { failSpan, runInContext, type Span, startServerSpan, tracingOn } from '../observability/tracing.js';
import type { KeyResolver } from './auth.js';
import type { TypedApp } from './types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span while tracing is on. */
    span: Span | null;
  }
}

export const METRICS_PATH = '/metrics';

/** The operation a request ran: its operationId, the route of an internal one, or `unmatched`. */
export function operationOf(request: FastifyRequest): string {
  return operationIdOf(request) ?? request.routeOptions.url ?? 'unmatched';
}

const operationIdOf = (request: FastifyRequest) =>
  (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId;

const KEY_PREFIX = /^Bearer +(cak_(?:live|test)_[0-9A-Za-z]{4})/i;

/**
 * What every line a request logs carries (the gate binds them once the key is known, the
 * completion line has them always): the tenant, the key's displayable prefix (`cak_live_AbCd`,
 * as the key list shows it), the route and the operationId.
 */
export function requestLogFields(request: FastifyRequest) {
  const options = request.routeOptions;
  return {
    tenant: request.ctx?.tenantId ?? null,
    keyPrefix: KEY_PREFIX.exec(request.headers.authorization ?? '')?.[1] ?? null,
    route: options.url ?? null,
    operationId: operationIdOf(request) ?? null,
  };
}

/** One line per request, when it is answered: health probes at debug, everything else at info. */
function logCompletion(request: FastifyRequest, reply: FastifyReply) {
  const probe = request.routeOptions.config.rateLimit === false;
  const level = probe ? 'debug' : 'info';
  if (!(request.log as Logger).isLevelEnabled(level)) return;
  request.log[level](
    {
      // The gate bound these to request.log once it knew the key; not again here.
      ...(request.ctx ? {} : requestLogFields(request)),
      method: request.method,
      path: request.url.split('?')[0],
      statusCode: reply.statusCode,
      errorCode: request.errorCode,
      responseTime: reply.elapsedTime,
    },
    'request completed',
  );
}

/** An error answer to a known tenant joins its recent errors (GET /admin/request-errors). */
function recordError(request: FastifyRequest, reply: FastifyReply, errors: RequestErrorLog) {
  if (reply.statusCode < 400 || !request.ctx) return;
  errors.record(request.ctx.tenantId, {
    method: request.method,
    route: request.routeOptions.url ?? null,
    operationId: operationIdOf(request) ?? null,
    status: reply.statusCode,
    code: request.errorCode,
    message: request.errorMessage,
    requestId: request.id,
  });
}

function endSpan(request: FastifyRequest, reply: FastifyReply) {
  const span = request.span;
  if (!span) return;
  request.span = null;
  // An unsampled request's span is not exported: nothing to say on it.
  if (!span.isRecording()) return span.end();
  span.setAttributes({
    'http.response.status_code': reply.statusCode,
    'commerce.operation_id': operationOf(request),
    ...(request.ctx ? { 'commerce.tenant_id': request.ctx.tenantId } : {}),
    ...(request.errorCode ? { 'error.type': request.errorCode } : {}),
  });
  if (reply.statusCode >= 500) failSpan(span, new Error(request.errorCode ?? `HTTP ${reply.statusCode}`));
  span.end();
}

/**
 * Per request: a server span (tracing on) in whose context the rest of the request runs, so the
 * database, billing and nested MCP requests are its children; on the answer, the request and
 * latency metrics, rate-limit rejections and idempotent replays, and the one log line (Fastify's
 * own request logging is off, app.ts). Registered first: the span must wrap every later hook.
 */
export function registerRequestTelemetry(app: TypedApp, metrics: Metrics, errors: RequestErrorLog) {
  app.decorateRequest('span', null);
  app.addHook('onRequest', (request, _reply, done) => {
    if (!tracingOn()) return done();
    const started = startServerSpan(
      `${request.method} ${request.routeOptions.url ?? 'unmatched'}`,
      request.headers,
      {
        'http.request.method': request.method,
        'url.path': request.url.split('?')[0] ?? '',
        ...(request.routeOptions.url ? { 'http.route': request.routeOptions.url } : {}),
      },
    );
    if (!started) return done();
    request.span = started.span;
    // Called inside the context: every later hook, the handler and what they await run in it.
    runInContext(started.context, done);
  });
  app.addHook('onResponse', async (request, reply) => {
    const operation = operationOf(request);
    metrics.httpRequest(operation, request.method, reply.statusCode, reply.elapsedTime / 1000);
    if (request.errorCode === 'rate_limited') metrics.rateLimitRejected(request.ctx ? 'key' : 'ip');
    if (reply.getHeader('x-idempotency-replayed') === 'true') metrics.idempotentReplay(operation);
    endSpan(request, reply);
    logCompletion(request, reply);
    recordError(request, reply, errors);
  });
  app.addHook('onRequestAbort', async (request) => {
    request.span?.end();
    request.span = null;
  });
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics, Prometheus text: every tenant's figures, so the operator's METRICS_TOKEN opens it
 * and no tenant's API key does (403 saying so: an admin key is one tenant's admin). Without the
 * token configured metrics are off: 404 naming the variable.
 */
export function registerMetricsEndpoint(
  app: TypedApp,
  options: { metrics: Metrics; token: string | undefined; apiKeys: Pick<KeyResolver, 'environmentOf'> },
) {
  const expected = options.token ? digest(options.token) : undefined;
  app.get(METRICS_PATH, { config: { public: false, scope: null } }, async (request, reply) => {
    if (!expected)
      throw new AppError(
        'not_found',
        'Metrics are off on this deployment: the operator turns them on with METRICS_TOKEN',
      );
    const presented = /^Bearer +(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!presented)
      throw new AppError(
        'unauthorized',
        'Missing token: send Authorization: Bearer <the METRICS_TOKEN of this deployment>',
      );
    if (options.apiKeys.environmentOf(presented))
      throw new AppError(
        'forbidden',
        "An API key cannot read /metrics: its figures are every tenant's. Send the deployment's METRICS_TOKEN",
      );
    if (!timingSafeEqual(digest(presented), expected))
      throw new AppError('unauthorized', 'Wrong metrics token');
    const { contentType, text } = await options.metrics.scrape();
    return reply.type(contentType).send(text);
  });
}
