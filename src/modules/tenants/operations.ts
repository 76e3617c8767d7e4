import type { OperationContext } from '../../core/context.js';
import { AppError } from '../../core/errors.js';
import { diffChanges, type OperationKey, runUnitOfWork, type ServiceDeps } from '../../unit-of-work/index.js';
import { getTenant, type Tenant, type TenantSettingsPatch, updateTenantSettings } from './service.js';

/** The settings the audit entry compares (every field PATCH can change). */
const audited = (t: Tenant) => ({
  name: t.name,
  usageMetering: t.usageMetering,
  autoApplyCredits: t.autoApplyCredits,
  defaultLocale: t.defaultLocale,
  allowLoopbackWebhooks: t.allowLoopbackWebhooks,
});

/**
 * Loopback webhook targets are a development convenience of the sandbox: a production deployment
 * refuses to turn them on (turning them off is always accepted).
 */
function assertLoopbackAllowed(deps: ServiceDeps, input: TenantSettingsPatch) {
  if (input.allowLoopbackWebhooks !== true || deps.config.appEnv === 'sandbox') return;
  const message =
    'allowLoopbackWebhooks can be turned on only in the sandbox environment; this deployment serves ' +
    'production, where webhooks need an https URL on a public address';
  throw new AppError('validation_failed', message, [
    { field: 'allowLoopbackWebhooks', rule: 'sandbox_only', message },
  ]);
}

/**
 * PATCH /admin/settings: renames the tenant, turns usage metering, credit on issue or loopback
 * webhook targets on or off, sets the default locale.
 */
export function changeTenantSettings(
  deps: ServiceDeps,
  ctx: OperationContext,
  input: TenantSettingsPatch,
  key: OperationKey<Tenant>,
): Promise<Tenant> {
  assertLoopbackAllowed(deps, input);
  return runUnitOfWork(deps, ctx, key, async (u) => {
    const before = await getTenant(u.tx, ctx.tenantId);
    const after = await updateTenantSettings(u.tx, ctx.tenantId, input);
    if (!before || !after) throw new Error(`key ${ctx.keyId} belongs to a missing tenant`);
    await u.audit({
      action: 'tenant.update',
      resourceType: 'tenant',
      resourceId: after.id,
      details: diffChanges(audited(before), audited(after)),
    });
    return after;
  });
}
