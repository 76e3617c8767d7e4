import type { TestApp, TestTenant } from '../../../harness.js';
import { adminPost } from '../../../support/catalog-fixtures.js';
import { ucpAgent } from './platform.js';

// A tenant's shop for the UCP tests: a product that ships, one that does not, two shipping
// options and a discount code; and the calls a platform makes, as it makes them.

const product = (name: string, cents: number, requiresShipping: boolean) => ({
  name,
  type: 'one_time',
  currency: 'USD',
  requiresShipping,
  charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: cents }] }],
});

export async function stockShop(t: TestApp, tenant: TestTenant) {
  const tote = await adminPost(t, tenant, 'products', product('Canvas tote bag', 2500, true));
  const ebook = await adminPost(t, tenant, 'products', product('Field guide (e-book)', 1200, false));
  const standard = await adminPost(t, tenant, 'shipping-options', {
    name: 'Standard',
    amountCents: 500,
    currency: 'USD',
    countries: ['US'],
    minDays: 3,
    maxDays: 5,
  });
  const express = await adminPost(t, tenant, 'shipping-options', {
    name: 'Express',
    amountCents: 1500,
    currency: 'USD',
    countries: ['US'],
    minDays: 1,
    maxDays: 2,
  });
  await adminPost(t, tenant, 'promotions', {
    code: 'SAVE10',
    name: 'Ten percent off',
    discountType: 'percent',
    percentOff: 10,
  });
  return {
    tote: tote.id as string,
    ebook: ebook.id as string,
    standard: standard.id as string,
    express: express.id as string,
  };
}

export const ADDRESS = {
  first_name: 'Jane',
  last_name: 'Doe',
  street_address: '123 Main St',
  address_locality: 'Springfield',
  address_region: 'IL',
  postal_code: '62701',
  address_country: 'US',
};

/** A sandbox_card instrument carrying `token`. */
export const instrument = (token: string, handlerId = 'sandbox_card') => ({
  payment: {
    instruments: [
      {
        id: 'instr_1',
        handler_id: handlerId,
        type: 'card',
        selected: true,
        display: { brand: 'visa', last_digits: '4242' },
        credential: { type: 'token', token },
      },
    ],
  },
});

/** The UCP REST API as one platform (its profile URL) calls it with one key. */
export function ucpClient(t: TestApp, key: string, profileUrl: string) {
  const send = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, idempotencyKey?: string) =>
    t.app.inject({
      method,
      url: `/ucp/v1${path}`,
      headers: {
        authorization: `Bearer ${key}`,
        ...ucpAgent(profileUrl),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  return {
    create: (body: unknown, key?: string) => send('POST', '/checkout-sessions', body, key),
    get: (id: string) => send('GET', `/checkout-sessions/${id}`),
    update: (id: string, body: unknown, key?: string) => send('PUT', `/checkout-sessions/${id}`, body, key),
    complete: (id: string, body: unknown, key?: string) =>
      send('POST', `/checkout-sessions/${id}/complete`, body, key),
    cancel: (id: string, key?: string) => send('POST', `/checkout-sessions/${id}/cancel`, {}, key),
    order: (id: string) => send('GET', `/orders/${id}`),
  };
}
