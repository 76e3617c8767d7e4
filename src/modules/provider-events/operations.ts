import type { OperationContext } from '../../core/context.js';
import { type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import type { ProviderName } from './schemas.js';
import { type ProviderIntegrationRow, saveProviderIntegration } from './service.js';

/**
 * PUT /admin/payment-provider: configures the tenant's provider, or rotates its endpoint id and
 * signing secret at once. The secret is in the result only; the audit entry never holds it.
 */
export function configureProvider(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { provider: ProviderName },
  key: OperationKey<ProviderIntegrationRow>,
): Promise<ProviderIntegrationRow> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const row = await saveProviderIntegration(u.tx, ctx.tenantId, input.provider, u.now);
    await u.audit({
      action: 'provider_integration.update',
      resourceType: 'provider_integration',
      resourceId: row.provider,
      details: { after: { provider: row.provider, endpointId: row.endpointId } },
    });
    return row;
  });
}
