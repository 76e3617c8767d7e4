import { iso } from '../../../core/format.js';
import type { RequestContext } from '../../../http/context.js';
import { defineRoute } from '../../../http/declared-route.js';
import type { Deps } from '../../../http/deps.js';
import { Envelope, envelope } from '../../../http/envelope.js';
import { type Presented, respond } from '../../../http/operation.js';
import { setBillingIntegration } from '../operations.js';
import { IntegrationSchema, putIntegrationBody } from '../schemas.js';
import { available, integrationActions, validConfig } from './shared.js';

export const putBillingIntegrationRoute = defineRoute({
  method: 'PUT',
  path: '/admin/billing-integration',
  operationId: 'putBillingIntegration',
  summary: 'Set the billing integration',
  description:
    'Makes `adapter` the tenant’s one active billing integration, replacing any other, with `config` ' +
    'validated against the adapter’s configSchema (400 naming `config.<field>`).',
  tags: ['Billing admin'],
  scope: 'admin',
  body: (deps: Deps) => putIntegrationBody(deps.billing.names()),
  responses: { 200: Envelope(IntegrationSchema, 'The integration now active.') },
  handler: async (request, reply, deps) => {
    const input = validConfig(deps, request.body.adapter, request.body.config);
    const saved = ({ at }: { at: Date }, ctx: RequestContext): Presented => ({
      status: 200,
      body: envelope(
        ctx,
        { ...input, createdAt: iso(at), updatedAt: iso(at), availableAdapters: available(deps) },
        integrationActions,
      ),
    });
    return respond(deps, request, reply, (ctx, key) => setBillingIntegration(deps, ctx, input, key), saved);
  },
});
