import { Type } from 'typebox';
import { defineRoute } from '../../../http/declared-route.js';
import { errorResponses } from '../../../http/errors.js';
import { type Presented, respond } from '../../../http/operation.js';
import { removeBillingIntegration } from '../operations.js';

export const deleteBillingIntegrationRoute = defineRoute({
  method: 'DELETE',
  path: '/admin/billing-integration',
  operationId: 'deleteBillingIntegration',
  summary: 'Remove the billing integration',
  description:
    'Deactivates billing for the tenant; billing data stays in the billing system. 404 when none is active.',
  tags: ['Billing admin'],
  scope: 'admin',
  responses: { 204: Type.Null({ description: 'Removed.' }), ...errorResponses(404) },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => removeBillingIntegration(deps, ctx, {}, key),
      (): Presented => ({ status: 204, body: undefined }),
    ),
});
