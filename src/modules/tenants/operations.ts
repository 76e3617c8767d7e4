import type { OperationContext } from '../../core/context.js';
import { diffChanges, type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { getTenant, type Tenant, updateTenantSettings } from './service.js';

/** PATCH /admin/settings: renames the tenant and/or turns usage metering or credit on issue on or off. */
export function changeTenantSettings(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: { name?: string; usageMetering?: boolean; autoApplyCredits?: boolean; defaultLocale?: string },
  key: OperationKey<Tenant>,
): Promise<Tenant> {
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const before = await getTenant(u.tx, ctx.tenantId);
    const after = await updateTenantSettings(u.tx, ctx.tenantId, input);
    if (!before || !after) throw new Error(`key ${ctx.keyId} belongs to a missing tenant`);
    await u.audit({
      action: 'tenant.update',
      resourceType: 'tenant',
      resourceId: after.id,
      details: diffChanges(
        {
          name: before.name,
          usageMetering: before.usageMetering,
          autoApplyCredits: before.autoApplyCredits,
          defaultLocale: before.defaultLocale,
        },
        {
          name: after.name,
          usageMetering: after.usageMetering,
          autoApplyCredits: after.autoApplyCredits,
          defaultLocale: after.defaultLocale,
        },
      ),
    });
    return after;
  });
}
