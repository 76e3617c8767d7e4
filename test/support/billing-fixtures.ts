import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import type { TestApp, TestTenant } from '../harness.js';
import { api } from './api.js';

/**
 * The built-in billing engine active for `tenant`, one billing account in USD, and a local
 * account linked to it (`externalId`): what a billing-linked subscription, order or payment needs.
 */
export async function linkedBillingAccount(t: TestApp, tenant: TestTenant, name = 'Acme') {
  await useBuiltinBilling(t, tenant);
  const engine = new BuiltinBilling(t.deps.db, t.deps.clock, tenant.tenantId);
  const billingId = (await engine.createAccount({ name, currency: 'USD' })).id;
  const account = (
    await api(t, tenant.keys.commerce).post('/accounts', { name, externalId: billingId })
  ).json().data;
  return { engine, billingId, account, orgId: account.id as string };
}

/** The built-in billing engine as the tenant's billing integration. */
export async function useBuiltinBilling(t: TestApp, tenant: TestTenant) {
  return api(t, tenant.keys.admin).put('/admin/billing-integration', { adapter: 'builtin' });
}

/** Invoices are paid by payments (to have something to refund), not by credit on issue. */
export async function noCreditOnIssue(t: TestApp, tenant: TestTenant) {
  return api(t, tenant.keys.admin).patch('/admin/settings', { autoApplyCredits: false });
}
