import { Type } from 'typebox';
import { AppError, notFound } from '../../core/errors.js';
import { iso } from '../../core/format.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { PROVIDER_CALLBACKS_PER_WINDOW } from '../../http/limits.js';
import { type Presented, respond } from '../../http/operation.js';
import { jsonProblem, refuseProblem } from '../../http/text-guard.js';
import type { TypedApp } from '../../http/types.js';
import { compileBodyValidator, validationDetails } from '../../http/validation.js';
import { applyProviderEvent } from './apply.js';
import { type ConfiguredProvider, configureProvider } from './operations.js';
import { callbackPath, sandboxEvent } from './sandbox.js';
import {
  IssuedProviderIntegrationSchema,
  isProvider,
  type ProviderEvent,
  ProviderEventSchema,
  ProviderIntegrationSchema,
  PutProviderBody,
  ReceiptSchema,
  SimulateBody,
  SimulationSchema,
} from './schemas.js';
import {
  findIntegrationByEndpoint,
  getProviderIntegration,
  type ProviderIntegrationRow,
  signingSecretOf,
} from './service.js';
import { SIGNATURE_HEADER, type VerifyFailure, verifySignature } from './signature.js';

const ADMIN = '/api/v1/admin/payment-provider';
const admin = { public: true, scope: 'admin' } as const;
const tags = ['Payment provider admin'];

const adminActions = [
  action('self', 'GET', '/admin/payment-provider', 'admin'),
  action('rotate', 'PUT', '/admin/payment-provider', 'admin'),
  action('simulate', 'POST', '/admin/payment-provider/simulate', 'admin'),
];

function presentIntegration(deps: Deps, row: ProviderIntegrationRow) {
  return {
    provider: row.provider,
    endpointId: row.endpointId,
    callbackUrl: deps.config.publicBaseUrl + callbackPath(row.provider, row.endpointId),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** A configured integration with its new secret: the one response that shows it. */
const issuedResponse =
  (deps: Deps) =>
  ({ row, secret }: ConfiguredProvider, ctx: RequestContext): Presented => ({
    status: 200,
    body: envelope(ctx, { ...presentIntegration(deps, row), secret }, adminActions),
  });

export function registerProviderEventRoutes(app: TypedApp, deps: Deps) {
  registerAdminRoutes(app, deps);
  registerCallbackRoute(app, deps);
}

function registerAdminRoutes(app: TypedApp, deps: Deps) {
  app.get(
    ADMIN,
    {
      config: admin,
      schema: {
        operationId: 'getPaymentProvider',
        summary: 'Get the payment-provider integration',
        description:
          'The provider that reports payment outcomes for this tenant and the callback URL it posts signed events ' +
          'to (the signing secret is shown only when issued). 404 when none is configured.',
        tags,
        response: {
          200: Envelope(ProviderIntegrationSchema, 'The integration, without its secret.'),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const row = await getProviderIntegration(deps.db, ctx.tenantId);
      if (!row) throw new AppError('not_found', 'No payment provider is configured');
      return envelope(ctx, presentIntegration(deps, row), adminActions);
    },
  );

  app.put(
    ADMIN,
    {
      config: admin,
      schema: {
        operationId: 'putPaymentProvider',
        summary: 'Configure or rotate the payment provider',
        description:
          'Configures `provider` (`sandbox`: the built-in engine’s) to report payment outcomes, issuing a new ' +
          'unguessable callback URL and a new signing secret (`whsec_...`, shown only in this response). On an ' +
          'existing integration both are replaced at once: the old URL and secret stop working.',
        tags,
        body: PutProviderBody,
        response: { 200: Envelope(IssuedProviderIntegrationSchema, 'The integration and its new secret.') },
      },
    },
    async (request, reply) => {
      const input = { provider: request.body.provider };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => configureProvider(deps, ctx, input, key),
        issuedResponse(deps),
      );
    },
  );

  app.post(
    `${ADMIN}/simulate`,
    {
      config: admin,
      schema: {
        operationId: 'simulateProviderEvent',
        summary: 'Simulate a sandbox provider event',
        description:
          'Acts as the sandbox payment provider: builds a `payment.succeeded` or `payment.failed` event for the ' +
          'session, signs it with the tenant’s secret and delivers it to the tenant’s callback URL through the ' +
          'real route. Returns the event and what the callback answered (its status and body). With an ' +
          'Idempotency-Key the event id is derived from the key, so a retry is acknowledged as a duplicate. 404 ' +
          'when no sandbox provider is configured.',
        tags,
        body: SimulateBody,
        response: {
          200: Envelope(SimulationSchema, 'The event sent and the callback’s answer.'),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const header = request.headers['idempotency-key'];
      const sent = await sandboxEvent(
        deps,
        ctx.tenantId,
        request.body,
        typeof header === 'string' ? header : undefined,
      );
      const response = await app.inject({
        method: 'POST',
        url: sent.path,
        headers: sent.headers,
        payload: sent.raw,
      });
      let answer: unknown = response.body;
      try {
        answer = JSON.parse(response.body);
      } catch {
        // Not JSON: returned as text.
      }
      const delivery = { statusCode: response.statusCode, body: answer };
      return envelope(ctx, { event: sent.event, delivery }, adminActions);
    },
  );
}

const SIGNATURE_MESSAGES: Record<VerifyFailure, string> = {
  missing: 'Missing Provider-Signature header',
  malformed: 'Malformed Provider-Signature header: expected t=<unix seconds>,v1=<hex HMAC-SHA256>',
  timestamp: 'Provider-Signature timestamp is outside the 5 minute tolerance',
  mismatch: 'Provider-Signature does not match the body',
};

const validateEvent = compileBodyValidator(ProviderEventSchema);

function parseEvent(raw: Buffer): ProviderEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('validation_failed', 'Request body is not valid JSON', [
      { field: 'body', rule: 'json', message: 'body is not valid JSON' },
    ]);
  }
  // The text the request guard checks on other routes, checked here once the bytes are known to
  // be the provider's: a NUL, a lone surrogate or a 100k-deep event was a 500 and never recorded.
  refuseProblem(jsonProblem(parsed, ''));
  if (!validateEvent(parsed)) {
    const details = validationDetails('body', validateEvent.errors ?? []);
    throw new AppError(
      'validation_failed',
      `Invalid event: ${details.map((d) => d.message).join('; ')}`,
      details,
    );
  }
  return parsed as ProviderEvent;
}

/**
 * The provider callback: internal (not in OpenAPI), no API key. The signature covers the exact
 * bytes sent, so this route alone gets the body as a Buffer (an encapsulated JSON parser, bounded
 * by the body limit) and parses and checks its text only after verifying: an unsigned body costs
 * a lookup and one HMAC, whatever it holds.
 */
function registerCallbackRoute(app: TypedApp, deps: Deps) {
  app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      '/api/v1/provider-events/:provider/:endpointId',
      {
        config: {
          public: false,
          rateLimit: { bucket: 'provider-events', max: PROVIDER_CALLBACKS_PER_WINDOW },
        },
        schema: {
          params: Type.Object({ provider: Type.String(), endpointId: Type.String() }),
          response: { 200: ReceiptSchema },
        },
      },
      async (request) => {
        const { provider, endpointId } = request.params as { provider: string; endpointId: string };
        const integration =
          isProvider(provider) && endpointId.length <= 64
            ? await findIntegrationByEndpoint(deps.db, provider, endpointId)
            : undefined;
        if (!integration) throw notFound('Provider endpoint');
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const header = request.headers[SIGNATURE_HEADER];
        const verdict = verifySignature(
          signingSecretOf(deps.keyRing, integration),
          Array.isArray(header) ? header.join(',') : header,
          raw,
          deps.clock.now(),
        );
        if (!verdict.ok) throw new AppError('unauthorized', SIGNATURE_MESSAGES[verdict.reason]);
        const event = parseEvent(raw);
        return applyProviderEvent(deps, integration.tenantId, provider, event, request.id);
      },
    );
  });
}
