import type { ServiceDeps } from '../../unit-of-work/index.js';
import { accountLinkedTo, resolveAccount } from '../accounts/index.js';

/**
 * The account that keeps credit given back for a subscription: the one account linked to its
 * billing account (`externalId`), the only account whose credit pays that billing account's
 * invoices; for a subscription with no billing account, its own account when that is linked to
 * one. Null when no account could ever spend the credit: the caller gives it back another way or
 * refuses, so no credit is stranded.
 */
export async function creditHolder(
  deps: ServiceDeps,
  tenantId: string,
  sub: { billingAccountId: string | null; organizationId: string | null },
): Promise<string | null> {
  if (sub.billingAccountId) return accountLinkedTo(deps.db, tenantId, sub.billingAccountId);
  if (!sub.organizationId) return null;
  const owner = await resolveAccount(deps, tenantId, sub.organizationId);
  const externalId = owner?.source === 'local' ? owner.account.externalId : null;
  if (!externalId) return null;
  const adapter = await deps.billing.forTenant(deps.db, tenantId);
  return adapter?.isAccountId(externalId) ? sub.organizationId : null;
}
