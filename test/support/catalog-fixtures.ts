import type { TestApp, TestTenant } from '../harness.js';
import { bearer } from '../harness.js';

export async function adminPost(t: TestApp, tenant: TestTenant, path: string, payload: object) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/admin/${path}`,
    headers: bearer(tenant.keys.admin),
    payload,
  });
  if (res.statusCode !== 201) throw new Error(`POST ${path} -> ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/** A seat-based plan: one per_unit charge of 1,000 cents a seat, plus a tiered usage charge. */
export const seatPlan = (overrides: object = {}) => ({
  name: 'Pro',
  type: 'subscription',
  family: 'core',
  rank: 2,
  billingInterval: 'month',
  currency: 'USD',
  entitlements: { seats: 10, sso: true, api_calls: null },
  charges: [
    { name: 'Seats', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 1000 }] },
    {
      name: 'Usage',
      chargeModel: 'tiered',
      tiers: [
        { upTo: 10, unitPriceCents: 100 },
        { upTo: null, unitPriceCents: 50, flatPriceCents: 200 },
      ],
    },
  ],
  ...overrides,
});

/** A subscription plan priced per seat (one per_unit charge), in family `core`. */
export const perSeat = (name: string, unitPriceCents: number, overrides: object = {}) => ({
  name,
  type: 'subscription',
  family: 'core',
  rank: 1,
  billingInterval: 'month',
  currency: 'USD',
  entitlements: {},
  charges: [{ name: 'Seats', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents }] }],
  ...overrides,
});

/** An add-on product (no family, rank or interval of its own) priced per seat. */
export const addOnProduct = (
  t: TestApp,
  tenant: TestTenant,
  name: string,
  cents: number,
  entitlements: object,
) =>
  adminPost(t, tenant, 'products', {
    ...perSeat(name, cents, { entitlements }),
    type: 'add_on',
    family: null,
    rank: null,
    billingInterval: null,
  });

/**
 * The plans and add-ons the entitlement and add-on tests share: Team (10 seats, no SSO) and
 * Business (rank 2, 50 seats, SSO) per seat, and the add-ons Extra seats (+5 seats) and Audit log.
 */
export async function entitledPlans(t: TestApp, tenant: TestTenant) {
  const plan = (name: string, cents: number, overrides: object) =>
    adminPost(t, tenant, 'products', perSeat(name, cents, overrides));
  return {
    team: await plan('Team', 1000, { entitlements: { seats: 10, sso: false } }),
    business: await plan('Business', 3000, { rank: 2, entitlements: { seats: 50, sso: true } }),
    seats: await addOnProduct(t, tenant, 'Extra seats', 300, { seats: 5 }),
    audit: await addOnProduct(t, tenant, 'Audit log', 900, { audit_log: true, retention_days: null }),
  };
}
