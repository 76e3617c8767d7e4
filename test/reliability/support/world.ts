import type { TestApp } from '../../harness.js';

/** One HTTP call: in-process (app.inject) or over the network to a child server. */
export interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  json(): any;
}
export type Call = (
  method: string,
  url: string,
  key: string | undefined,
  payload?: unknown,
  headers?: Record<string, string>,
) => Promise<Reply>;

export function injectCall(t: TestApp): Call {
  return async (method, url, key, payload, headers = {}) => {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    return {
      status: res.statusCode,
      body: res.body,
      headers: res.headers as Reply['headers'],
      json: () => JSON.parse(res.body),
    };
  };
}

export function httpCall(baseUrl: () => string): Call {
  return async (method, url, key, payload, headers = {}) => {
    const res = await fetch(`${baseUrl()}${url}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
    });
    const body = await res.text();
    return {
      status: res.status,
      body,
      headers: Object.fromEntries(res.headers.entries()),
      json: () => JSON.parse(body),
    };
  };
}

export interface Keys {
  read: string;
  commerce: string;
  admin: string;
}

/** Ids of one of every resource type a tenant can own, created through the public API. */
export interface World {
  product: string;
  addOnProduct: string;
  oneTimeProduct: string;
  charge: string;
  priceRule: string;
  offer: string;
  promotion: string;
  promotionCode: string;
  planLink: string;
  planChangeRule: string;
  policy: string;
  shippingOption: string;
  apiKey: string;
  billingAccount: string;
  invoice: string;
  account: string;
  paymentMethod: string;
  webhook: string;
  delivery: string;
  cart: string;
  cartItem: string;
  order: string;
  payment: string;
  refund: string;
  subscription: string;
}

const perSeat = (name: string, cents: number, extra: object = {}) => ({
  name,
  type: 'subscription',
  family: 'core',
  rank: 1,
  billingInterval: 'month',
  currency: 'USD',
  entitlements: {},
  charges: [{ name: 'Seats', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: cents }] }],
  ...extra,
});

/**
 * Builds a tenant's world through the API (built-in billing, a webhook to `webhookUrl`). Throws
 * with the answer when a step does not succeed.
 */
export async function buildWorld(
  call: Call,
  keys: Keys,
  webhookUrl = 'https://hooks.example.com/in',
): Promise<World> {
  const ok = async (method: string, url: string, key: string, payload?: unknown) => {
    const res = await call(method, `/api/v1${url}`, key, payload);
    if (res.status >= 300) throw new Error(`${method} ${url} -> ${res.status}: ${res.body}`);
    return res.status === 204 ? undefined : res.json().data;
  };
  const suffix = Math.random().toString(36).slice(2, 8);
  await ok('PUT', '/admin/billing-integration', keys.admin, { adapter: 'builtin' });
  const starter = await ok('POST', '/admin/products', keys.admin, perSeat('Starter', 1000));
  const pro = await ok('POST', '/admin/products', keys.admin, perSeat('Pro', 2500, { rank: 2 }));
  const addOn = await ok('POST', '/admin/products', keys.admin, {
    ...perSeat('Extra seats', 700),
    type: 'add_on',
    family: null,
    rank: null,
  });
  const oneTime = await ok('POST', '/admin/products', keys.admin, {
    name: 'Workshop',
    type: 'one_time',
    currency: 'USD',
    charges: [
      {
        name: 'Seat',
        chargeModel: 'flat_fee',
        tiers: [{ upTo: null, unitPriceCents: 0, flatPriceCents: 9900 }],
      },
    ],
  });
  const charge = starter.charges[0].id as string;
  const priceRule = await ok('POST', '/admin/price-rules', keys.admin, {
    name: 'EU',
    productId: starter.id,
    chargeId: charge,
    segment: 'eu',
    tiers: [{ upTo: null, unitPriceCents: 900 }],
  });
  const offer = await ok('POST', '/admin/offers', keys.admin, {
    name: 'Launch',
    productId: starter.id,
    discountType: 'percent',
    percentOff: 10,
    startsAt: '2020-01-01T00:00:00Z',
  });
  const promotionCode = `save${suffix}`;
  const promotion = await ok('POST', '/admin/promotions', keys.admin, {
    code: promotionCode,
    name: 'Save',
    discountType: 'amount',
    amountOffCents: 500,
    currency: 'USD',
  });
  const planLink = await ok('POST', '/admin/plan-links', keys.admin, {
    sourceProductId: starter.id,
    sourceChargeId: charge,
    targetProductId: pro.id,
    targetChargeId: pro.charges[0].id,
    targetField: 'quantity',
    explanation: 'Seats carry over',
  });
  const planChangeRule = await ok('POST', '/admin/plan-change-rules', keys.admin, {
    name: 'Core downgrades',
    family: 'core',
    direction: 'downgrade',
    changeTiming: 'end_of_period',
    prorationType: 'none',
  });
  const policy = await ok('POST', '/admin/policies', keys.admin, {
    name: 'No huge orders',
    type: 'order_create',
    effect: 'block',
    condition: { '>': [{ var: 'order.totalCents' }, 1_000_000_000] },
  });
  const shippingOption = await ok('POST', '/admin/shipping-options', keys.admin, {
    name: 'Express',
    amountCents: 1500,
    currency: 'USD',
    countries: ['US'],
    minDays: 1,
    maxDays: 2,
  });
  const apiKey = await ok('POST', '/admin/api-keys', keys.admin, { name: 'extra', scopes: ['read'] });
  const billingAccount = await ok('POST', '/admin/billing/accounts', keys.admin, {
    name: 'Initech',
    currency: 'USD',
  });
  const invoice = await ok('POST', `/admin/billing/accounts/${billingAccount.id}/invoices`, keys.admin, {
    lines: [{ description: 'Setup', unitAmountCents: 1000 }],
  });
  await ok('POST', `/admin/billing/accounts/${billingAccount.id}/payment-methods`, keys.admin, {
    lastFour: '4242',
  });
  const account = await ok('POST', '/accounts', keys.commerce, {
    name: 'Initech',
    externalId: billingAccount.id,
  });
  const paymentMethod = await ok('POST', '/payment-methods', keys.commerce, { accountId: account.id });
  const webhook = await ok('POST', '/webhooks', keys.commerce, { url: webhookUrl, events: ['*'] });
  const delivery = await ok('POST', `/webhooks/${webhook.id}/test`, keys.commerce);
  const cart = await ok('POST', '/carts', keys.commerce, {});
  const withItem = await ok('POST', `/carts/${cart.id}/items`, keys.commerce, {
    productId: oneTime.id,
    quantity: 1,
  });
  const order = await ok('POST', '/orders', keys.commerce, {
    items: [{ productId: oneTime.id, quantity: 1 }],
  });
  const payment = await ok('POST', '/payments', keys.commerce, {
    accountId: 'acct_1',
    amountCents: 500,
    currency: 'USD',
  });
  const paid = await ok('POST', '/payments', keys.commerce, {
    accountId: 'acct_2',
    amountCents: 800,
    currency: 'USD',
  });
  await ok('POST', `/payments/${paid.id}/complete`, keys.commerce, {});
  const refund = await ok('POST', `/payments/${paid.id}/refunds`, keys.commerce, {
    reason: 'other',
    amountCents: 100,
  });
  await ok('POST', `/accounts/${account.id}/credits`, keys.admin, {
    amountCents: 300,
    currency: 'USD',
    reason: 'x',
  });
  const subscription = await ok('POST', '/subscriptions', keys.commerce, {
    productId: starter.id,
    quantity: 2,
    organizationId: account.id,
  });
  return {
    product: starter.id,
    addOnProduct: addOn.id,
    oneTimeProduct: oneTime.id,
    charge,
    priceRule: priceRule.id,
    offer: offer.id,
    promotion: promotion.id,
    promotionCode,
    planLink: planLink.id,
    planChangeRule: planChangeRule.id,
    policy: policy.id,
    shippingOption: shippingOption.id,
    apiKey: apiKey.id,
    billingAccount: billingAccount.id,
    invoice: invoice.id,
    account: account.id,
    paymentMethod: paymentMethod.id,
    webhook: webhook.id,
    delivery: delivery.id,
    cart: cart.id,
    cartItem: withItem.items[0].id,
    order: order.id,
    payment: payment.id,
    refund: refund.id,
    subscription: subscription.id,
  };
}
