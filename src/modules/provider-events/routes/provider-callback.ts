import { Type } from 'typebox';
import { AppError, notFound } from '../../../core/errors.js';
import type { Deps } from '../../../http/deps.js';
import { PROVIDER_CALLBACKS_PER_WINDOW } from '../../../http/limits.js';
import { jsonProblem, refuseProblem } from '../../../http/text-guard.js';
import type { TypedApp } from '../../../http/types.js';
import { compileBodyValidator, validationDetails } from '../../../http/validation.js';
import { applyProviderEvent } from '../apply.js';
import { isProvider, type ProviderEvent, ProviderEventSchema, ReceiptSchema } from '../schemas.js';
import { findIntegrationByEndpoint, signingSecretOf } from '../service.js';
import { SIGNATURE_HEADER, type VerifyFailure, verifySignature } from '../signature.js';

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
export function registerProviderCallback(app: TypedApp, deps: Deps) {
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
