import { randomUUID } from 'node:crypto';
import type { ManualClock } from '../../src/clock.js';
import { bearer, type TestApp, type TestTenant } from '../harness.js';
import { adminPost } from '../support/catalog-fixtures.js';

// An ACP agent as the tests play it: API-Version and a fresh Idempotency-Key on every POST
// unless a test says otherwise, and the catalog a seller needs for a checkout.

export const ACP_VERSION = '2026-04-17';

export interface AcpRequestOptions {
  /** null: no Idempotency-Key header; a string: that key; absent: a fresh one. */
  idempotencyKey?: string | null;
  /** null: no API-Version header. */
  version?: string | null;
  headers?: Record<string, string>;
}

export function acpClient(t: TestApp, key: string | null) {
  const send = (method: 'GET' | 'POST', path: string, body?: unknown, options: AcpRequestOptions = {}) => {
    const version = options.version === undefined ? ACP_VERSION : options.version;
    const idem = options.idempotencyKey === undefined ? randomUUID() : options.idempotencyKey;
    return t.app.inject({
      method,
      url: `/api/v1${path}`,
      headers: {
        ...(key ? bearer(key) : {}),
        ...(version !== null ? { 'api-version': version } : {}),
        ...(method === 'POST' && idem !== null ? { 'idempotency-key': idem } : {}),
        ...options.headers,
      },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  };
  return {
    send,
    create: (body: unknown, options?: AcpRequestOptions) => send('POST', '/checkout_sessions', body, options),
    update: (id: string, body: unknown, options?: AcpRequestOptions) =>
      send('POST', `/checkout_sessions/${id}`, body, options),
    get: (id: string, options?: AcpRequestOptions) =>
      send('GET', `/checkout_sessions/${id}`, undefined, options),
    complete: (id: string, body: unknown, options?: AcpRequestOptions) =>
      send('POST', `/checkout_sessions/${id}/complete`, body, options),
    cancel: (id: string, body?: unknown, options?: AcpRequestOptions) =>
      send('POST', `/checkout_sessions/${id}/cancel`, body, options),
    delegate: (body: unknown, options?: AcpRequestOptions) =>
      send('POST', '/agentic_commerce/delegate_payment', body, options),
  };
}

export type AcpClient = ReturnType<typeof acpClient>;

export const address = {
  name: 'Jane Doe',
  line_one: '1234 Chat Road',
  line_two: 'Apt 4',
  city: 'San Francisco',
  state: 'CA',
  country: 'US',
  postal_code: '94131',
};

export const noInterventions = { interventions: { supported: [] } };

/** The seller's catalog: a shipped mug, a digital e-book, two shipping options, a promo code. */
export async function acpCatalog(t: TestApp, tenant: TestTenant) {
  const product = (name: string, cents: number, requiresShipping: boolean) =>
    adminPost(t, tenant, 'products', {
      name,
      description: `${name}, for the ACP tests`,
      type: 'one_time',
      currency: 'USD',
      requiresShipping,
      charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: cents }] }],
    });
  const shipping = (
    name: string,
    amountCents: number,
    minDays: number,
    maxDays: number,
    countries: string[],
  ) =>
    adminPost(t, tenant, 'shipping-options', {
      name,
      amountCents,
      currency: 'USD',
      countries,
      minDays,
      maxDays,
    });
  return {
    mug: (await product('Mug', 1500, true)) as { id: string },
    ebook: (await product('E-book', 900, false)) as { id: string },
    standard: (await shipping('Standard', 500, 3, 5, ['US'])) as { id: string },
    express: (await shipping('Express', 1500, 1, 2, ['US'])) as { id: string },
    promo: (await adminPost(t, tenant, 'promotions', {
      code: 'SAVE10',
      name: '10% off',
      discountType: 'percent',
      percentOff: 10,
    })) as { code: string },
  };
}

export type AcpCatalog = Awaited<ReturnType<typeof acpCatalog>>;

/** A card delegated for `sessionId`, allowed `maxAmount` cents until `expiresInMs` from the clock's now. */
export function delegation(
  sessionId: string,
  merchantId: string,
  maxAmount: number,
  clock: ManualClock,
  expiresInMs = 3_600_000,
) {
  return {
    payment_method: {
      type: 'card',
      card_number_type: 'fpan',
      virtual: false,
      number: '4242424242424242',
      exp_month: '11',
      exp_year: '2030',
      name: 'Jane Doe',
      cvc: '223',
      checks_performed: ['cvv'],
      display_card_funding_type: 'credit',
      display_brand: 'visa',
      display_last4: '4242',
      metadata: {},
    },
    allowance: {
      reason: 'one_time',
      max_amount: maxAmount,
      currency: 'usd',
      checkout_session_id: sessionId,
      merchant_id: merchantId,
      expires_at: new Date(clock.now().getTime() + expiresInMs).toISOString(),
    },
    billing_address: address,
    risk_signals: [{ type: 'card_testing', score: 3, action: 'authorized' }],
    metadata: { source: 'acp-test' },
  };
}

/** payment_data for a delegated token. */
export const paidWith = (token: string) => ({
  payment_data: {
    handler_id: 'acp_delegated_card',
    instrument: { type: 'card', credential: { type: 'spt', token } },
    billing_address: address,
  },
});
