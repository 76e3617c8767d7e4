import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { bearer, type TestApp, type TestTenant } from '../harness.js';

/**
 * The built-in billing engine active for `tenant`, one billing account in USD, and a local
 * account linked to it (`externalId`): what a billing-linked subscription, order or payment needs.
 */
export async function linkedBillingAccount(t: TestApp, tenant: TestTenant, name = 'Acme') {
  await t.app.inject({
    method: 'PUT',
    url: '/api/v1/admin/billing-integration',
    headers: bearer(tenant.keys.admin),
    payload: { adapter: 'builtin' },
  });
  const engine = new BuiltinBilling(t.deps.db, t.deps.clock, tenant.tenantId);
  const billingId = (await engine.createAccount({ name, currency: 'USD' })).id;
  const account = await t.app.inject({
    method: 'POST',
    url: '/api/v1/accounts',
    headers: bearer(tenant.keys.commerce),
    payload: { name, externalId: billingId },
  });
  return { engine, billingId, orgId: account.json().data.id as string };
}
