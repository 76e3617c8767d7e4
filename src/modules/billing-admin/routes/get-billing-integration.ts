import { iso } from '../../../core/format.js';
import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { IntegrationSchema } from '../schemas.js';
import { available, integrationActions } from './shared.js';

export const getBillingIntegrationRoute = defineRoute({
  method: 'GET',
  path: '/admin/billing-integration',
  operationId: 'getBillingIntegration',
  summary: 'Get the billing integration',
  description:
    'The tenant’s active billing integration (`adapter` null when none: then account invoices, subscriptions ' +
    'and payment methods answer 404) and the adapters this deployment offers, each with the JSON Schema of its config.',
  tags: ['Billing admin'],
  scope: 'admin',
  responses: { 200: Envelope(IntegrationSchema, 'The integration and the available adapters.') },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const current = await deps.billing.integration(deps.db, ctx.tenantId);
    return envelope(
      ctx,
      {
        adapter: current?.adapter ?? null,
        config: current?.config ?? null,
        createdAt: current ? iso(current.createdAt) : null,
        updatedAt: current ? iso(current.updatedAt) : null,
        availableAdapters: available(deps),
      },
      integrationActions,
    );
  },
});
