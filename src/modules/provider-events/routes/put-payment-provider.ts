import { defineRoute } from '../../../http/declared-route.js';
import { Envelope } from '../../../http/envelope.js';
import { respond } from '../../../http/operation.js';
import { configureProvider } from '../operations.js';
import { IssuedProviderIntegrationSchema, PutProviderBody } from '../schemas.js';
import { issuedResponse, tags } from './shared.js';

export const putPaymentProviderRoute = defineRoute({
  method: 'PUT',
  path: '/admin/payment-provider',
  operationId: 'putPaymentProvider',
  summary: 'Configure or rotate the payment provider',
  description:
    'Configures `provider` (`sandbox`: the built-in engine’s) to report payment outcomes, issuing a new ' +
    'unguessable callback URL and a new signing secret (`whsec_...`, shown only in this response). On an ' +
    'existing integration both are replaced at once: the old URL and secret stop working.',
  tags,
  scope: 'admin',
  body: PutProviderBody,
  responses: { 200: Envelope(IssuedProviderIntegrationSchema, 'The integration and its new secret.') },
  handler: async (request, reply, deps) => {
    const input = { provider: request.body.provider };
    return respond(
      deps,
      request,
      reply,
      (ctx, key) => configureProvider(deps, ctx, input, key),
      issuedResponse(deps),
    );
  },
});
