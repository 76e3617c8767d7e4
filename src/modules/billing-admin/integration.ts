import { billingIntegrations } from '../../billing/tables.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';

// The `billing_integrations` table belongs to src/billing (the registry reads it); these are the
// writes the admin endpoints make.

export async function saveIntegration(
  tx: Queryable,
  tenantId: string,
  adapter: string,
  config: Record<string, unknown>,
  now: Date,
) {
  await tx
    .insert(billingIntegrations)
    .values({ tenantId, adapter, config, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: billingIntegrations.tenantId, set: { adapter, config, updatedAt: now } });
}

export async function deleteIntegration(tx: Queryable, tenantId: string): Promise<boolean> {
  const rows = await tx
    .delete(billingIntegrations)
    .where(tenantWhere(billingIntegrations, tenantId))
    .returning({ tenantId: billingIntegrations.tenantId });
  return rows.length > 0;
}
