import { AppError } from '../../../core/errors.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { ProviderIntegrationSchema } from '../schemas.js';
import { getProviderIntegration } from '../service.js';
import { adminActions, presentIntegration, tags } from './shared.js';

export const getPaymentProviderRoute = defineRoute({
  method: 'GET',
  path: '/admin/payment-provider',
  operationId: 'getPaymentProvider',
  summary: 'Get the payment-provider integration',
  description:
    'The provider that reports payment outcomes for this tenant and the callback URL it posts signed events ' +
    'to (the signing secret is shown only when issued). 404 when none is configured.',
  tags,
  scope: 'admin',
  responses: {
    200: Envelope(ProviderIntegrationSchema, 'The integration, without its secret.'),
    ...errorResponses(404),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const row = await getProviderIntegration(deps.db, ctx.tenantId);
    if (!row) throw new AppError('not_found', 'No payment provider is configured');
    return envelope(ctx, presentIntegration(deps, row), adminActions);
  },
});
