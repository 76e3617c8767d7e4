import type { OperationContext } from '../../core/context.js';
import { type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import type { ProviderName } from './schemas.js';
import { type ProviderIntegrationRow, saveProviderIntegration } from './service.js';

export interface ConfiguredProvider {
  row: ProviderIntegrationRow;
  /** The new signing secret in clear: in this response only. */
  secret: string;
}

/**
 * PUT /admin/payment-provider: configures the tenant's provider, or rotates its endpoint id and
 * signing secret at once. The secret is in the result only; the audit entry never holds it.
 */
export function configureProvider(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { provider: ProviderName },
  key: OperationKey<ConfiguredProvider>,
): Promise<ConfiguredProvider> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const configured = await saveProviderIntegration(u.tx, deps.keyRing, ctx.tenantId, input.provider, u.now);
    const { row } = configured;
    await u.audit({
      action: 'provider_integration.update',
      resourceType: 'provider_integration',
      resourceId: row.provider,
      details: { after: { provider: row.provider, endpointId: row.endpointId } },
    });
    return configured;
  });
}
