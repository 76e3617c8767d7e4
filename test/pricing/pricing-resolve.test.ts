import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { adminPost, seatPlan } from '../support/catalog-fixtures.js';

let t: TestApp;
let tenant: TestTenant;
let plan: { id: string; charges: { id: string }[] };
const clock = new ManualClock(new Date('2031-06-15T12:00:00Z'));

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
  plan = await adminPost(t, tenant, 'products', seatPlan());
});
afterAll(() => t.app.close());

const resolve = (query: string, key = tenant.keys.read) =>
  t.app.inject({ method: 'GET', url: `/api/v1/pricing/resolve?${query}`, headers: bearer(key) });

describe('GET /pricing/resolve', () => {
  it('prices every charge for the quantity and explains the result', async () => {
    const res = await resolve(`productId=${plan.id}&quantity=12`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=60');
    const d = res.json().data;
    // Seats: 12 x 1000; usage graduated: 10 x 100 + 2 x 50 + 200 flat = 1300.
    expect(d).toMatchObject({
      productId: plan.id,
      productName: 'Pro',
      currency: 'USD',
      quantity: 12,
      context: { segment: null, locale: null, partner: null },
      basePriceCents: 13_300,
      subtotalCents: 13_300,
      discountCents: 0,
      totalCents: 13_300,
      unitPriceCents: 1108,
      pricingTierCount: 2,
      appliedPriceRules: [],
      appliedOffers: [],
      requiresQuote: false,
    });
    expect(d.tiers).toEqual([
      {
        id: plan.charges[0]?.id,
        name: 'Seats',
        price: 120,
        priceCents: 12_000,
        currency: 'USD',
        chargeModel: 'per_unit',
      },
      {
        id: plan.charges[1]?.id,
        name: 'Usage',
        price: 13,
        priceCents: 1300,
        currency: 'USD',
        chargeModel: 'tiered',
      },
    ]);
    expect(res.json().nextActions.map((a: { rel: string }) => a.rel)).toEqual(['catalog', 'createCart']);
  });

  it('multiplies by quantity (per unit) and defaults quantity to 1', async () => {
    const seatsOnly = await adminPost(t, tenant, 'products', seatPlan({ charges: [seatPlan().charges[0]] }));
    const one = (await resolve(`productId=${seatsOnly.id}`)).json().data;
    expect(one.quantity).toBe(1);
    for (const q of [2, 7, 250]) {
      const many = (await resolve(`productId=${seatsOnly.id}&quantity=${q}`)).json().data;
      expect(many.totalCents).toBe(q * one.totalCents);
    }
  });

  it('applies the most specific price rule and active offers for the context', async () => {
    const p = await adminPost(t, tenant, 'products', seatPlan({ charges: [seatPlan().charges[0]] }));
    const seats = p.charges[0].id;
    const rule = (name: string, dims: object, unit: number) =>
      adminPost(t, tenant, 'price-rules', {
        name,
        productId: p.id,
        chargeId: seats,
        ...dims,
        tiers: [{ upTo: null, unitPriceCents: unit }],
      });
    await rule('segment', { segment: 'smb' }, 900);
    const both = await rule('segment+locale', { segment: 'smb', locale: 'de-DE' }, 850);
    await adminPost(t, tenant, 'partners', { name: 'Acme', code: 'acme' });
    await rule('partner', { partner: 'acme' }, 700);
    const offer = await adminPost(t, tenant, 'offers', {
      name: 'Summer',
      productId: p.id,
      discountType: 'percent',
      percentOff: 10,
      startsAt: '2031-06-01T00:00:00Z',
      endsAt: '2031-07-01T00:00:00Z',
      segment: 'smb',
    });
    const smbDe = (await resolve(`productId=${p.id}&quantity=2&segment=smb&locale=de-DE`)).json().data;
    expect(smbDe).toMatchObject({
      basePriceCents: 2000,
      subtotalCents: 1700,
      appliedPriceRules: [{ id: both.id, name: 'segment+locale', chargeId: seats }],
      appliedOffers: [{ id: offer.id, name: 'Summer', discountCents: 170 }],
      discountCents: 170,
      totalCents: 1530,
      context: { segment: 'smb', locale: 'de-DE', partner: null },
    });
    const partner = (await resolve(`productId=${p.id}&quantity=2&partner=acme&segment=enterprise`)).json()
      .data;
    expect(partner).toMatchObject({ subtotalCents: 1400, totalCents: 1400, appliedOffers: [] });
    clock.set(new Date('2031-07-01T00:00:00Z')); // the offer's end is exclusive
    const after = (await resolve(`productId=${p.id}&quantity=2&segment=smb&locale=de-DE`)).json().data;
    expect(after).toMatchObject({ totalCents: 1700, appliedOffers: [] });
    clock.set(new Date('2031-06-15T12:00:00Z'));
  });

  it('flags passthrough charges as needing a live quote', async () => {
    const p = await adminPost(
      t,
      tenant,
      'products',
      seatPlan({ charges: [seatPlan().charges[0], { name: 'Carrier fee', kind: 'passthrough' }] }),
    );
    const d = (await resolve(`productId=${p.id}&quantity=3`)).json().data;
    expect(d).toMatchObject({ requiresQuote: true, totalCents: 3000, pricingTierCount: 2 });
    expect(d.tiers[1]).toMatchObject({
      name: 'Carrier fee',
      price: null,
      priceCents: null,
      chargeModel: null,
    });
  });

  it.each([
    ['', 'query.productId', 'required'],
    ['productId=nope', 'query.productId', 'format'],
    ['productId=01900000-0000-7000-8000-000000000001&quantity=0', 'query.quantity', 'minimum'],
    ['productId=01900000-0000-7000-8000-000000000001&quantity=1.5', 'query.quantity', 'type'],
    ['productId=01900000-0000-7000-8000-000000000001&quantity=abc', 'query.quantity', 'type'],
    [
      `productId=01900000-0000-7000-8000-000000000001&segment=${'s'.repeat(101)}`,
      'query.segment',
      'maxLength',
    ],
    [`productId=01900000-0000-7000-8000-000000000001&locale=${'l'.repeat(21)}`, 'query.locale', 'maxLength'],
    [
      `productId=01900000-0000-7000-8000-000000000001&partner=${'p'.repeat(256)}`,
      'query.partner',
      'maxLength',
    ],
    ['productId=01900000-0000-7000-8000-000000000001&color=red', 'query.color', 'additionalProperties'],
  ])('400 validation_failed for %s', async (query, field, rule) => {
    const res = await resolve(query);
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details).toContainEqual(expect.objectContaining({ field, rule }));
  });

  it('accepts bounds at their edge', async () => {
    const res = await resolve(
      `productId=${plan.id}&segment=${'s'.repeat(100)}&locale=${'l'.repeat(20)}&partner=${'p'.repeat(255)}`,
    );
    expect(res.statusCode).toBe(200);
  });

  it('404 for an unknown product, another tenant’s product, or an inactive one', async () => {
    expect((await resolve('productId=01900000-0000-7000-8000-000000000001')).statusCode).toBe(404);
    const other = await createTestTenant(t.deps);
    expect((await resolve(`productId=${plan.id}`, other.keys.read)).statusCode).toBe(404);
    const inactive = await adminPost(t, tenant, 'products', seatPlan({ active: false }));
    const res = await resolve(`productId=${inactive.id}`);
    expect(res.statusCode).toBe(404);
    expect(errorBody(res)).toMatchObject({ code: 'not_found', error: 'Product not found' });
  });

  it('needs a key: 401 without one; any scope may read', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/pricing/resolve?productId=${plan.id}` });
    expect(res.statusCode).toBe(401);
    expect((await resolve(`productId=${plan.id}`, tenant.keys.commerce)).statusCode).toBe(200);
  });
});

describe('GET /catalog', () => {
  it('catalog lists active products of this tenant with a resolvePrice action each', async () => {
    const fresh = await createTestTenant(t.deps);
    const a = await adminPost(t, fresh, 'products', seatPlan({ name: 'A' }));
    await adminPost(t, fresh, 'products', seatPlan({ name: 'Hidden', active: false }));
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/catalog',
      headers: bearer(fresh.keys.read),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=60');
    expect(res.headers.vary).toBe('Authorization');
    const { data, nextActions } = res.json();
    expect(data.map((p: { name: string }) => p.name)).toEqual(['A']);
    expect(data[0]).toMatchObject({
      id: a.id,
      entitlements: { seats: 10, sso: true, api_calls: null },
      charges: a.charges,
    });
    expect(nextActions).toMatchObject([
      {
        rel: 'resolvePrice',
        method: 'GET',
        href: `/api/v1/pricing/resolve?productId=${a.id}`,
        requiredScope: 'read',
        allowed: true,
      },
      { rel: 'createCart', method: 'POST', href: '/api/v1/carts', requiredScope: 'commerce', allowed: false },
      {
        rel: 'createAccount',
        method: 'POST',
        href: '/api/v1/accounts',
        requiredScope: 'commerce',
        allowed: false,
      },
      {
        rel: 'searchCatalog',
        method: 'GET',
        href: '/api/v1/catalog/search',
        requiredScope: 'read',
        allowed: true,
      },
    ]);
  });
});
