import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import {
  cancelCheckout,
  completeCheckout,
  createCheckout,
  delegatePayment,
  type getCheckout,
  updateCheckout,
} from '../../src/modules/checkout-sessions/index.js';
import { mintedKey } from '../../src/unit-of-work/index.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { adminPost } from '../support/catalog-fixtures.js';

// The one checkout model both protocols bind to, driven directly: the bindings' own tests drive
// the same operations over HTTP. Here: decisions, transitions, and the races that must make one order.

let t: TestApp;
let shop: TestTenant;
let ctx: { tenantId: string; keyId: string | null; requestId: string };
let book: { id: string };
let ebook: { id: string };
const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
const key = () => mintedKey();

const address = {
  name: 'Ada',
  line1: '1 Main St',
  city: 'Springfield',
  region: 'IL',
  postalCode: '62701',
  country: 'US',
};

beforeAll(async () => {
  t = await startApp({ clock });
  shop = await createTestTenant(t.deps);
  ctx = { tenantId: shop.tenantId, keyId: shop.keyIds.commerce, requestId: 'test' };
  const oneTime = (name: string, cents: number, requiresShipping: boolean) => ({
    name,
    type: 'one_time',
    currency: 'USD',
    requiresShipping,
    charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: cents }] }],
  });
  book = await adminPost(t, shop, 'products', oneTime('Book', 2500, true));
  ebook = await adminPost(t, shop, 'products', oneTime('E-book', 1000, false));
  await adminPost(t, shop, 'shipping-options', {
    name: 'Standard',
    amountCents: 500,
    currency: 'USD',
    countries: ['US'],
    minDays: 3,
    maxDays: 5,
  });
  await adminPost(t, shop, 'promotions', {
    name: 'Ten off',
    code: 'SAVE10',
    discountType: 'percent',
    percentOff: 10,
  });
});

afterAll(async () => {
  await t.app.close();
});

describe('checkout model', () => {
  it('prices what can be bought and names the rest as messages; digital needs no address', async () => {
    const s = await createCheckout(
      t.deps,
      ctx,
      {
        protocol: 'ucp',
        change: {
          items: [
            { productId: ebook.id, quantity: 2 },
            { productId: 'nope', quantity: 1 },
            { productId: ebook.id, quantity: 0 },
          ],
        },
      },
      key(),
    );
    expect(s.lines).toEqual([
      expect.objectContaining({ productId: ebook.id, quantity: 2, baseAmount: 2000, total: 2000 }),
    ]);
    expect(s.messages.map((m) => [m.code, m.target])).toEqual([
      ['invalid', { kind: 'item', index: 1, field: 'id' }],
      ['invalid', { kind: 'item', index: 2, field: 'quantity' }],
    ]);
    expect(s.status).toBe('not_ready');
    const fixed = await updateCheckout(
      t.deps,
      ctx,
      { id: s.id, change: { items: [{ productId: ebook.id, quantity: 2 }] } },
      key(),
    );
    expect(fixed).toMatchObject({ status: 'ready', selectedFulfillmentOptionId: 'digital', messages: [] });
    expect(fixed.totals).toMatchObject({ itemsBase: 2000, fulfillment: 0, total: 2000 });
  });

  it('a physical good needs an address we ship to; a code discounts the lines; completing makes one paid order', async () => {
    const s = await createCheckout(
      t.deps,
      ctx,
      {
        protocol: 'ucp',
        change: { items: [{ productId: book.id, quantity: 2 }], discountCodes: ['NOPE', 'SAVE10'] },
      },
      key(),
    );
    expect(s.status).toBe('not_ready');
    expect(s.messages[0]).toMatchObject({ code: 'missing', target: { kind: 'address' } });
    const abroad = await updateCheckout(
      t.deps,
      ctx,
      { id: s.id, change: { address: { ...address, country: 'FR' } } },
      key(),
    );
    expect(abroad.messages[0]).toMatchObject({
      code: 'invalid',
      target: { kind: 'address', field: 'country' },
    });
    const home = await updateCheckout(t.deps, ctx, { id: s.id, change: { address } }, key());
    expect(home.status).toBe('ready');
    expect(home.appliedDiscounts).toEqual([{ code: 'SAVE10', title: 'Code SAVE10', amount: 500 }]);
    expect(home.rejectedDiscounts).toEqual([{ code: 'NOPE', reason: 'unknown' }]);
    expect(home.totals).toEqual({
      itemsBase: 5000,
      itemsDiscount: 500,
      subtotal: 4500,
      discount: 500,
      fulfillment: 500,
      tax: 0,
      total: 5000,
    });
    const payment = { handlerId: 'sandbox_card', token: 'success_token' };
    const [a, b] = await Promise.allSettled([
      completeCheckout(t.deps, ctx, { id: s.id, payment }, key()),
      completeCheckout(t.deps, ctx, { id: s.id, payment }, key()),
    ]);
    const done = [a, b].filter((r) => r.status === 'fulfilled');
    expect(done).toHaveLength(1);
    const session = (done[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof getCheckout>>>).value;
    expect(session.status).toBe('completed');
    const order = await t.app.inject({
      method: 'GET',
      url: `/api/v1/orders/${session.orderId}`,
      headers: { authorization: `Bearer ${shop.keys.read}` },
    });
    expect(order.json().data).toMatchObject({
      totalCents: 5000,
      paymentStatus: 'paid',
      status: 'confirmed',
      checkoutSessionId: s.id,
      shipping: { name: 'Standard', amountCents: 500 },
    });
    await expect(cancelCheckout(t.deps, ctx, { id: s.id }, key())).rejects.toMatchObject({
      code: 'checkout_session_closed',
    });
  });

  it('sandbox tokens decline and escalate; a delegated token pays once, only its session, within its allowance', async () => {
    const s = await createCheckout(
      t.deps,
      ctx,
      { protocol: 'ucp', change: { items: [{ productId: ebook.id, quantity: 1 }] } },
      key(),
    );
    const declined = await completeCheckout(
      t.deps,
      ctx,
      { id: s.id, payment: { handlerId: 'sandbox_card', token: 'fail_token' } },
      key(),
    );
    expect(declined).toMatchObject({ status: 'ready', orderId: null });
    expect(declined.messages.at(-1)).toMatchObject({ code: 'payment_declined' });
    const escalated = await completeCheckout(
      t.deps,
      ctx,
      {
        id: s.id,
        payment: { handlerId: 'sandbox_card', token: 'escalate_token' },
        baseUrl: 'https://shop.example',
      },
      key(),
    );
    expect(escalated).toMatchObject({
      status: 'requires_escalation',
      continueUrl: `https://shop.example/checkout/${shop.tenantId}/${s.id}`,
    });
    // The buyer's page behind it, without a key; another tenant's path to the session is 404.
    const page = await t.app.inject({ method: 'GET', url: `/checkout/${shop.tenantId}/${s.id}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('asked for your confirmation');
    expect(page.body).toContain('$10.00');
    const stranger = await createTestTenant(t.deps);
    const elsewhere = await t.app.inject({ method: 'GET', url: `/checkout/${stranger.tenantId}/${s.id}` });
    expect(elsewhere.statusCode).toBe(404);

    const acp = await createCheckout(
      t.deps,
      ctx,
      { protocol: 'acp', change: { items: [{ productId: ebook.id, quantity: 1 }] } },
      key(),
    );
    const other = await createCheckout(
      t.deps,
      ctx,
      { protocol: 'acp', change: { items: [{ productId: ebook.id, quantity: 1 }] } },
      key(),
    );
    const allowance = (over: object = {}) => ({
      reason: 'one_time' as const,
      maxAmount: 1000,
      currency: 'usd',
      checkoutSessionId: acp.id,
      merchantId: shop.tenantId,
      expiresAt: '2026-03-01T11:00:00.000Z',
      ...over,
    });
    const card = { number: '4242424242424242', brand: 'visa' };
    const small = await delegatePayment(
      t.deps,
      ctx,
      { card, allowance: allowance({ maxAmount: 999 }) },
      key(),
    );
    const pay = (id: string, token: string) =>
      completeCheckout(t.deps, ctx, { id, payment: { handlerId: 'acp_delegated_card', token } }, key());
    await expect(pay(acp.id, small.id)).rejects.toMatchObject({ code: 'payment_token_invalid' });
    await expect(pay(acp.id, 'success_token')).rejects.toMatchObject({ code: 'payment_token_invalid' });
    const token = await delegatePayment(t.deps, ctx, { card, allowance: allowance() }, key());
    await expect(pay(other.id, token.id)).rejects.toMatchObject({ code: 'payment_token_invalid' });
    const paid = await pay(acp.id, token.id);
    expect(paid.status).toBe('completed');
    const again = await createCheckout(
      t.deps,
      ctx,
      { protocol: 'acp', change: { items: [{ productId: ebook.id, quantity: 1 }] } },
      key(),
    );
    await expect(pay(again.id, token.id)).rejects.toMatchObject({ code: 'payment_token_invalid' });
    const late = await delegatePayment(
      t.deps,
      ctx,
      { card, allowance: allowance({ checkoutSessionId: again.id }) },
      key(),
    );
    clock.set(new Date('2026-03-01T11:00:00.000Z'));
    await expect(pay(again.id, late.id)).rejects.toMatchObject({ code: 'payment_token_invalid' });
  });
});
