import type { BillingAdapter } from '../../../billing/adapter.js';
import type { RequestContext } from '../../../http/context.js';
import type { Deps } from '../../../http/deps.js';
import { type ActionSpec, envelope, next, unavailable } from '../../../http/envelope.js';
import type { Presented } from '../../../http/operation.js';
import type { TagTarget } from '../../../http/tag-routes.js';
import { AccountSchema } from '../schemas.js';
import { type AccountApi, type OrganizationRow, presentAccount } from '../service.js';
import { accountTags } from '../tags.js';

export const TAGS = ['Accounts'];
export const BASE = '/api/v1/accounts';

/** Why a tenant-owned account has no billing data to list, or undefined when it has. */
export function missingBillingLink(
  adapter: BillingAdapter | null,
  externalId: string | null,
): string | undefined {
  if (!adapter) return 'This tenant has no active billing integration, so the account has no billing data.';
  if (externalId === null)
    return 'No billing account is linked: the account has no externalId (set at creation).';
  if (!adapter.isAccountId(externalId))
    return 'No billing account is linked: the account’s externalId is not a billing account id.';
  return undefined;
}

/**
 * What an account links to: `update` only where the account is ours to change, a cart for it,
 * and the billing sub-lists SPEC.md requires, with `allowed: false` and the reason when no billing
 * account is linked (they could only answer 404).
 */
export function accountActions(id: string, tenantOwned: boolean, noBilling?: string): ActionSpec[] {
  const billing = (spec: ActionSpec) => (noBilling ? unavailable(spec, noBilling) : spec);
  return [
    next('self', 'getAccount', { id }),
    ...(tenantOwned
      ? [next('update', 'updateAccount', { id }), next('createCart', 'createCart', { organizationId: id })]
      : []),
    billing(next('invoices', 'listAccountInvoices', { id })),
    billing(next('subscriptions', 'listAccountSubscriptions', { id })),
    billing(next('paymentMethods', 'listAccountPaymentMethods', { id })),
  ];
}

/** A tenant-owned account in its envelope. */
export const accountResponse =
  (status: number, adapter: BillingAdapter | null) =>
  (account: AccountApi, ctx: RequestContext): Presented => ({
    status,
    body: envelope(
      ctx,
      account,
      accountActions(account.id, true, missingBillingLink(adapter, account.externalId)),
    ),
  });

/** Tags of the tenant's own accounts. */
export const accountTagTarget = (deps: Deps): TagTarget<OrganizationRow> => ({
  resource: 'accounts',
  schema: AccountSchema,
  operations: accountTags,
  presenter: async (tenantId) => {
    const present = accountResponse(200, await deps.billing.forTenant(deps.db, tenantId));
    return (row, ctx) => present(presentAccount(row), ctx);
  },
});
