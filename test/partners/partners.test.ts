import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost, seatPlan } from '../support/catalog-fixtures.js';
import { consoleApi, signedIn } from '../support/console.js';

describe('partners', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  let product: { id: string; charges: { id: string }[] };

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
    other = await createTestTenant(t.deps);
    product = await adminPost(t, tenant, 'products', seatPlan({ type: 'one_time', billingInterval: null }));
  });
  afterAll(() => t.app.close());

  const admin = () => api(t, tenant.keys.admin);

  it('creates, lists, reads, changes and deletes a partner, audited', async () => {
    const created = await admin().post('/admin/partners', { name: 'Acme Reseller', code: 'acme-crud' });
    expect(created.statusCode).toBe(201);
    const partner = created.json().data;
    expect(partner).toMatchObject({ name: 'Acme Reseller', code: 'acme-crud', status: 'active' });
    expect((await admin().get(`/admin/partners/${partner.id}`)).json().data).toEqual(partner);
    const list = await admin().get('/admin/partners');
    expect(list.json().data.map((p: { id: string }) => p.id)).toContain(partner.id);

    const patched = await admin().patch(`/admin/partners/${partner.id}`, { status: 'inactive' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({ status: 'inactive', code: 'acme-crud' });
    const codeChange = await admin().patch(`/admin/partners/${partner.id}`, { code: 'other' });
    expect(codeChange.statusCode).toBe(400);

    const audit = await admin().get(`/audit-logs?resourceId=${partner.id}&sort=createdAt`);
    expect(audit.json().data.map((e: { action: string }) => e.action)).toEqual([
      'partner.create',
      'partner.update',
    ]);
    expect((await admin().delete(`/admin/partners/${partner.id}`)).statusCode).toBe(204);
    expect((await admin().get(`/admin/partners/${partner.id}`)).statusCode).toBe(404);
  });

  it('refuses a duplicate code (409) and bad input (400 naming the field)', async () => {
    await adminPost(t, tenant, 'partners', { name: 'Dup', code: 'dup' });
    const dup = await admin().post('/admin/partners', { name: 'Dup again', code: 'dup' });
    expect(dup.statusCode).toBe(409);
    expect(errorBody(dup).details?.[0]).toMatchObject({ field: 'code', rule: 'unique' });
    const long = await admin().post('/admin/partners', { name: 'Long', code: 'x'.repeat(256) });
    expect(long.statusCode).toBe(400);
    expect(errorBody(long).details?.[0]).toMatchObject({ field: 'code' });
    // Another tenant may use the same code.
    expect(
      (await api(t, other.keys.admin).post('/admin/partners', { name: 'Dup', code: 'dup' })).statusCode,
    ).toBe(201);
  });

  it('keeps another tenant’s partners out of sight', async () => {
    const mine = await adminPost(t, tenant, 'partners', { name: 'Mine', code: 'mine' });
    const foreign = api(t, other.keys.admin);
    expect((await foreign.get(`/admin/partners/${mine.id}`)).statusCode).toBe(404);
    expect((await foreign.patch(`/admin/partners/${mine.id}`, { name: 'x' })).statusCode).toBe(404);
    expect((await foreign.delete(`/admin/partners/${mine.id}`)).statusCode).toBe(404);
    const listed = (await foreign.get('/admin/partners')).json().data.map((p: { id: string }) => p.id);
    expect(listed).not.toContain(mine.id);
  });

  it('lets a developer manage partners and refuses a viewer or a read key', async () => {
    const developer = await signedIn(t, tenant.tenantId, 'developer');
    expect(
      (await consoleApi(t, developer).post('/admin/partners', { name: 'Dev', code: 'dev' })).statusCode,
    ).toBe(201);
    const viewer = await signedIn(t, tenant.tenantId, 'viewer');
    const refused = await consoleApi(t, viewer).post('/admin/partners', { name: 'View', code: 'view' });
    expect(refused.statusCode).toBe(403);
    expect(errorBody(refused).error).toContain('"catalog.write"');
    expect(
      (await api(t, tenant.keys.commerce).post('/admin/partners', { name: 'C', code: 'c' })).statusCode,
    ).toBe(403);
  });

  it('refuses a price rule or an offer naming an unknown partner; a known one is accepted', async () => {
    const rule = {
      name: 'Partner price',
      productId: product.id,
      chargeId: product.charges[0]?.id,
      tiers: [{ upTo: null, unitPriceCents: 700 }],
    };
    const unknown = await admin().post('/admin/price-rules', { ...rule, partner: 'nobody' });
    expect(unknown.statusCode).toBe(400);
    expect(errorBody(unknown).details?.[0]).toMatchObject({ field: 'partner', rule: 'known_partner' });
    const offer = {
      name: 'Partner offer',
      productId: product.id,
      discountType: 'percent',
      percentOff: 10,
      startsAt: '2026-01-01T00:00:00Z',
      partner: 'nobody',
    };
    const unknownOffer = await admin().post('/admin/offers', offer);
    expect(unknownOffer.statusCode).toBe(400);
    expect(errorBody(unknownOffer).details?.[0]).toMatchObject({ field: 'partner' });

    await adminPost(t, tenant, 'partners', { name: 'Globex', code: 'globex' });
    const accepted = await admin().post('/admin/price-rules', { ...rule, partner: 'globex' });
    expect(accepted.statusCode).toBe(201);
    expect((await admin().post('/admin/offers', { ...offer, partner: 'globex' })).statusCode).toBe(201);
    const patchUnknown = await admin().patch(`/admin/price-rules/${accepted.json().data.id}`, {
      partner: 'nobody',
    });
    expect(patchUnknown.statusCode).toBe(400);
    expect(errorBody(patchUnknown).details?.[0]).toMatchObject({ field: 'partner' });

    const partnerId = (await admin().get('/admin/partners'))
      .json()
      .data.find((p: { code: string }) => p.code === 'globex').id;
    const inUse = await admin().delete(`/admin/partners/${partnerId}`);
    expect(inUse.statusCode).toBe(409);
  });

  it('reports an unknown partner in pricing and order warnings; none for a known one', async () => {
    await adminPost(t, tenant, 'partners', { name: 'Initech', code: 'initech' });
    const read = api(t, tenant.keys.read);
    const unknown = await read.get(`/pricing/resolve?productId=${product.id}&partner=ghost`);
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json().data.warnings).toEqual([
      {
        code: 'unknown_partner',
        field: 'partner',
        message:
          'No partner with code "ghost": no partner price rule or offer applies (prices are the default ones)',
      },
    ]);
    const known = await read.get(`/pricing/resolve?productId=${product.id}&partner=initech`);
    expect(known.json().data).not.toHaveProperty('warnings');

    const shop = api(t, tenant.keys.commerce);
    const order = await shop.post('/orders', {
      items: [{ productId: product.id, quantity: 1 }],
      customerContext: { partner: 'ghost' },
    });
    expect(order.statusCode, order.body).toBe(201);
    expect(order.json().data.warnings).toMatchObject([
      { code: 'unknown_partner', field: 'customerContext.partner' },
    ]);
    const knownOrder = await shop.post('/orders', {
      items: [{ productId: product.id, quantity: 1 }],
      customerContext: { partner: 'initech' },
    });
    expect(knownOrder.json().data).not.toHaveProperty('warnings');
  });

  it('warns of an unknown partner in the context an order takes from its cart', async () => {
    await admin().post('/admin/partners', { name: 'Umbrella', code: 'umbrella' });
    const shop = api(t, tenant.keys.commerce);
    const cartWith = async (partner: string) => {
      const cart = await shop.post('/carts', { currency: 'USD', customerContext: { partner } });
      expect(cart.statusCode, cart.body).toBe(201);
      const id = cart.json().data.id as string;
      const added = await shop.post(`/carts/${id}/items`, { productId: product.id, quantity: 1 });
      expect(added.statusCode, added.body).toBe(201);
      return id;
    };
    const ghostCart = await cartWith('ghost-cart');
    const order = await shop.post('/orders', { cartId: ghostCart }, { idempotencyKey: `order-${ghostCart}` });
    expect(order.statusCode, order.body).toBe(201);
    expect(order.json().data.customerContext).toMatchObject({ partner: 'ghost-cart' });
    expect(order.json().data.warnings).toEqual([
      {
        code: 'unknown_partner',
        field: 'cartId',
        message:
          'No partner with code "ghost-cart": no partner price rule or offer applies (prices are the default ones)',
      },
    ]);
    // The stored answer of a retry says it too.
    const replay = await shop.post(
      '/orders',
      { cartId: ghostCart },
      { idempotencyKey: `order-${ghostCart}` },
    );
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(replay.json().data.warnings).toEqual(order.json().data.warnings);

    const knownCart = await cartWith('umbrella');
    const known = await shop.post('/orders', { cartId: knownCart });
    expect(known.statusCode, known.body).toBe(201);
    expect(known.json().data).not.toHaveProperty('warnings');
    // A partner of another tenant is no partner of this one.
    await api(t, other.keys.admin).post('/admin/partners', { name: 'Theirs', code: 'theirs-only' });
    const theirs = await shop.post('/orders', { cartId: await cartWith('theirs-only') });
    expect(theirs.json().data.warnings).toMatchObject([{ code: 'unknown_partner', field: 'cartId' }]);
  });
});
