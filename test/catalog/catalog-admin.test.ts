import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api, type Method } from '../support/api.js';
import { adminPost, seatPlan } from '../support/catalog-fixtures.js';

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let product: { id: string; charges: { id: string }[] };
let target: { id: string; charges: { id: string }[] };

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  product = await adminPost(t, tenant, 'products', seatPlan());
  target = await adminPost(t, tenant, 'products', seatPlan({ name: 'Enterprise', rank: 3 }));
});
afterAll(() => t.app.close());

const call = (method: string, path: string, key: string, payload?: object) =>
  api(t, key).send(method as Method, `/admin/${path}`, payload);

// One valid body per resource, and a patch that changes one field.
const resources = () => [
  {
    path: 'products',
    body: seatPlan({ name: 'Basic', rank: 1 }),
    patch: { name: 'Basic 2' },
    bad: { name: '' },
    badField: 'name',
  },
  {
    path: 'price-rules',
    body: {
      name: 'EU',
      productId: product.id,
      chargeId: product.charges[0]?.id,
      segment: 'eu',
      tiers: [{ upTo: null, unitPriceCents: 900 }],
    },
    patch: { name: 'EU 2' },
    bad: {
      name: 'x',
      productId: product.id,
      chargeId: product.charges[0]?.id,
      tiers: [{ upTo: null, unitPriceCents: 900 }],
    },
    badField: 'segment',
  },
  {
    path: 'offers',
    body: {
      name: 'Launch',
      productId: product.id,
      discountType: 'percent',
      percentOff: 10,
      startsAt: '2020-01-01T00:00:00Z',
    },
    patch: { percentOff: 20 },
    bad: { name: 'x', productId: product.id, discountType: 'percent', startsAt: '2020-01-01T00:00:00Z' },
    badField: 'percentOff',
  },
  {
    path: 'promotions',
    body: {
      code: `save${Math.random().toString(36).slice(2, 8)}`,
      name: 'Save',
      discountType: 'amount',
      amountOffCents: 500,
      currency: 'USD',
    },
    patch: { minSubtotalCents: 1000 },
    bad: { code: 'x', name: 'x', discountType: 'amount', amountOffCents: 5 },
    badField: 'currency',
  },
  {
    path: 'plan-links',
    body: {
      sourceProductId: product.id,
      sourceChargeId: product.charges[0]?.id,
      targetProductId: target.id,
      targetChargeId: target.charges[0]?.id,
      targetField: 'quantity',
      explanation: 'Seats carry over',
    },
    patch: { explanation: 'Seats carry over on upgrade' },
    bad: {
      sourceProductId: product.id,
      sourceChargeId: target.charges[0]?.id,
      targetProductId: target.id,
      targetChargeId: target.charges[0]?.id,
      targetField: 'quantity',
      explanation: 'x',
    },
    badField: 'sourceChargeId',
  },
  {
    path: 'plan-change-rules',
    body: {
      name: 'Core downgrades',
      family: 'core',
      direction: 'downgrade',
      changeTiming: 'end_of_period',
      prorationType: 'none',
    },
    patch: { prorationType: 'full_credit' },
    bad: { name: 'x', fromProductId: product.id, changeTiming: 'immediate', prorationType: 'none' },
    badField: 'toProductId',
  },
];

describe('catalog admin endpoints: CRUD, validation and tenancy', () => {
  it('creates, reads back, lists, updates (with an audit diff) and deletes each resource', async () => {
    for (const r of resources()) {
      const created = await call('POST', r.path, tenant.keys.admin, r.body);
      expect(created.statusCode, `${r.path}: ${created.body}`).toBe(201);
      const id = created.json().data.id;
      expect(created.json().nextActions.map((a: { rel: string }) => a.rel)).toEqual([
        'self',
        'update',
        'delete',
        'list',
      ]);
      const got = await call('GET', `${r.path}/${id}`, tenant.keys.admin);
      expect(got.statusCode).toBe(200);
      expect(got.json().data).toEqual(created.json().data);
      const list = await call('GET', r.path, tenant.keys.admin);
      expect(list.json().data.map((x: { id: string }) => x.id)).toContain(id);
      const patched = await call('PATCH', `${r.path}/${id}`, tenant.keys.admin, r.patch);
      expect(patched.statusCode, `${r.path}: ${patched.body}`).toBe(200);
      for (const [field, value] of Object.entries(r.patch)) expect(patched.json().data[field]).toEqual(value);
      const audit = await t.app.inject({
        method: 'GET',
        url: `/api/v1/audit-logs?resourceId=${id}`,
        headers: bearer(tenant.keys.admin),
      });
      const entries = audit.json().data as {
        action: string;
        details: { before: object; after: object } | null;
      }[];
      expect(entries.map((e) => e.action.split('.')[1])).toEqual(['update', 'create']);
      expect(Object.keys(entries[0]?.details?.after ?? {})).toEqual(Object.keys(r.patch));
      const deleted = await call('DELETE', `${r.path}/${id}`, tenant.keys.admin);
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe('');
      expect((await call('GET', `${r.path}/${id}`, tenant.keys.admin)).statusCode).toBe(404);
    }
  });

  it('rejects invalid bodies with 400 naming the field, writing nothing', async () => {
    for (const r of resources()) {
      const before = (await call('GET', r.path, tenant.keys.admin)).json().data.length;
      const res = await call('POST', r.path, tenant.keys.admin, r.bad);
      expect(res.statusCode, `${r.path}: ${res.body}`).toBe(400);
      expect(errorBody(res).code).toBe('validation_failed');
      expect(
        errorBody(res).details?.map((d) => d.field),
        r.path,
      ).toContain(r.badField);
      expect((await call('GET', r.path, tenant.keys.admin)).json().data.length).toBe(before);
      const unknown = await call('POST', r.path, tenant.keys.admin, { ...r.body, surprise: 1 });
      expect(errorBody(unknown).details?.[0]).toMatchObject({
        field: 'surprise',
        rule: 'additionalProperties',
      });
      const empty = await call(
        'PATCH',
        `${r.path}/00000000-0000-7000-8000-000000000000`,
        tenant.keys.admin,
        {},
      );
      expect(empty.statusCode).toBe(400);
    }
  });

  it('is admin-only: read and commerce keys get 403 on every operation', async () => {
    for (const r of resources()) {
      for (const key of [tenant.keys.read, tenant.keys.commerce]) {
        expect((await call('GET', r.path, key)).statusCode).toBe(403);
        expect((await call('POST', r.path, key, r.body)).statusCode).toBe(403);
        expect((await call('DELETE', `${r.path}/${product.id}`, key)).statusCode).toBe(403);
      }
    }
  });

  it('answers 404 for another tenant’s resources, and does not let references cross tenants', async () => {
    for (const r of resources()) {
      const created = await call('POST', r.path, tenant.keys.admin, r.body);
      const id = created.json().data.id;
      expect((await call('GET', `${r.path}/${id}`, other.keys.admin)).statusCode).toBe(404);
      expect((await call('PATCH', `${r.path}/${id}`, other.keys.admin, r.patch)).statusCode).toBe(404);
      expect((await call('DELETE', `${r.path}/${id}`, other.keys.admin)).statusCode).toBe(404);
      expect(
        (await call('GET', r.path, other.keys.admin)).json().data.map((x: { id: string }) => x.id),
      ).not.toContain(id);
      await call('DELETE', `${r.path}/${id}`, tenant.keys.admin);
    }
    const foreignRule = await call('POST', 'price-rules', other.keys.admin, resources()[1]?.body as object);
    expect(foreignRule.statusCode).toBe(400);
    expect(errorBody(foreignRule).details?.[0]?.field).toBe('productId');
  });

  it('accepts a client-chosen id once (409 the second time)', async () => {
    const id = '01900000-0000-7000-8000-00000000abcd';
    expect((await call('POST', 'products', tenant.keys.admin, seatPlan({ id }))).statusCode).toBe(201);
    const again = await call('POST', 'products', tenant.keys.admin, seatPlan({ id }));
    expect(again.statusCode).toBe(409);
    expect(errorBody(again).details?.[0]).toMatchObject({ field: 'id', rule: 'unique' });
    // The same id is free in another tenant: ids are per tenant.
    expect((await call('POST', 'products', other.keys.admin, seatPlan({ id }))).statusCode).toBe(201);
  });
});

describe('catalog admin endpoints: product rules', () => {
  const bad = async (body: object, field: string, rule?: string) => {
    const res = await call('POST', 'products', tenant.keys.admin, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(errorBody(res).details?.[0]).toMatchObject({ field, ...(rule ? { rule } : {}) });
  };

  it('checks tiers against the charge model', async () => {
    const charge = (chargeModel: string, tiers: object[]) =>
      seatPlan({ charges: [{ name: 'c', chargeModel, tiers }] });
    await bad(
      charge('per_unit', [
        { upTo: 5, unitPriceCents: 1 },
        { upTo: null, unitPriceCents: 1 },
      ]),
      'charges.0.tiers',
      'maxItems',
    );
    await bad(charge('tiered', [{ upTo: 5, unitPriceCents: 1 }]), 'charges.0.tiers.0.upTo');
    await bad(
      charge('volume', [
        { upTo: 5, unitPriceCents: 1 },
        { upTo: 5, unitPriceCents: 1 },
        { upTo: null, unitPriceCents: 1 },
      ]),
      'charges.0.tiers.1.upTo',
    );
    await bad(
      charge('tiered', [{ upTo: null, unitPriceCents: -1 }]),
      'charges.0.tiers.0.unitPriceCents',
      'minimum',
    );
    await bad(seatPlan({ charges: [{ name: 'c', chargeModel: 'per_unit' }] }), 'charges.0.tiers', 'required');
    await bad(
      seatPlan({ charges: [{ name: 'c', kind: 'passthrough', chargeModel: 'per_unit' }] }),
      'charges.0.chargeModel',
      'forbidden',
    );
    await bad(seatPlan({ charges: [] }), 'charges', 'minItems');
  });

  it('checks billing interval against the type, and currency and entitlement keys', async () => {
    await bad(seatPlan({ billingInterval: null }), 'billingInterval', 'required');
    await bad(seatPlan({ type: 'one_time' }), 'billingInterval', 'forbidden');
    await bad(seatPlan({ currency: 'usd' }), 'currency', 'pattern');
    await bad(seatPlan({ entitlements: { 'Bad Key': true } }), 'entitlements');
    const patch = await call('PATCH', `products/${product.id}`, tenant.keys.admin, { type: 'one_time' });
    expect(errorBody(patch).details?.[0]).toMatchObject({ field: 'billingInterval', rule: 'forbidden' });
  });

  it('refuses to delete a product, or drop a charge, that rules still refer to (409 listing them)', async () => {
    const p = await adminPost(t, tenant, 'products', seatPlan());
    await adminPost(t, tenant, 'partners', { name: 'Acme', code: 'acme' });
    const rule = await adminPost(t, tenant, 'price-rules', {
      name: 'Partner price',
      productId: p.id,
      chargeId: p.charges[0].id,
      partner: 'acme',
      tiers: [{ upTo: null, unitPriceCents: 800 }],
    });
    const del = await call('DELETE', `products/${p.id}`, tenant.keys.admin);
    expect(del.statusCode).toBe(409);
    expect(errorBody(del)).toMatchObject({
      code: 'conflict',
      details: [{ field: 'id', rule: 'referenced', message: `price rule ${rule.id} refers to it` }],
    });
    const drop = await call('PATCH', `products/${p.id}`, tenant.keys.admin, {
      charges: [
        {
          id: p.charges[1].id,
          name: 'Usage',
          chargeModel: 'per_unit',
          tiers: [{ upTo: null, unitPriceCents: 5 }],
        },
      ],
    });
    expect(drop.statusCode).toBe(409);
    const keep = await call('PATCH', `products/${p.id}`, tenant.keys.admin, {
      charges: [
        {
          id: p.charges[0].id,
          name: 'Seats',
          chargeModel: 'per_unit',
          tiers: [{ upTo: null, unitPriceCents: 1200 }],
        },
      ],
    });
    expect(keep.statusCode).toBe(200);
    expect(keep.json().data.charges).toEqual([
      {
        id: p.charges[0].id,
        name: 'Seats',
        kind: 'modeled',
        chargeModel: 'per_unit',
        tiers: [{ upTo: null, unitPriceCents: 1200, flatPriceCents: 0 }],
      },
    ]);
    expect((await call('DELETE', `price-rules/${rule.id}`, tenant.keys.admin)).statusCode).toBe(204);
    expect((await call('DELETE', `products/${p.id}`, tenant.keys.admin)).statusCode).toBe(204);
  });
});

describe('catalog admin endpoints: promotion, offer and rule checks', () => {
  it('keeps promo codes unique per tenant, case-insensitively, stored upper-case', async () => {
    const first = await call('POST', 'promotions', tenant.keys.admin, {
      code: 'Spring25',
      name: 'Spring',
      discountType: 'percent',
      percentOff: 25,
    });
    expect(first.json().data.code).toBe('SPRING25');
    const dup = await call('POST', 'promotions', tenant.keys.admin, {
      code: 'spring25',
      name: 'Again',
      discountType: 'percent',
      percentOff: 5,
    });
    expect(dup.statusCode).toBe(409);
    expect(errorBody(dup).details?.[0]).toMatchObject({ field: 'code', rule: 'unique' });
    const elsewhere = await call('POST', 'promotions', other.keys.admin, {
      code: 'spring25',
      name: 'Other',
      discountType: 'percent',
      percentOff: 5,
    });
    expect(elsewhere.statusCode).toBe(201);
  });

  it('checks discount fields and windows', async () => {
    const offer = { name: 'o', productId: product.id, startsAt: '2030-01-01T00:00:00Z' };
    const cases: [object, string][] = [
      [{ ...offer, discountType: 'amount', percentOff: 10 }, 'amountOffCents'],
      [{ ...offer, discountType: 'amount', amountOffCents: 10, percentOff: 10 }, 'percentOff'],
      [{ ...offer, discountType: 'percent', percentOff: 101 }, 'percentOff'],
      [{ ...offer, discountType: 'percent', percentOff: 10, endsAt: '2029-01-01T00:00:00Z' }, 'endsAt'],
      [
        {
          ...offer,
          discountType: 'percent',
          percentOff: 10,
          productId: '00000000-0000-7000-8000-000000000000',
        },
        'productId',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', 'offers', tenant.keys.admin, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorBody(res).details?.[0]?.field, JSON.stringify(body)).toBe(field);
    }
  });

  it('refuses price rules on passthrough charges and plan-change rules without scope', async () => {
    const p = await adminPost(
      t,
      tenant,
      'products',
      seatPlan({ charges: [{ name: 'Metered', kind: 'passthrough' }] }),
    );
    const res = await call('POST', 'price-rules', tenant.keys.admin, {
      name: 'x',
      productId: p.id,
      chargeId: p.charges[0].id,
      segment: 's',
      tiers: [{ upTo: null, unitPriceCents: 1 }],
    });
    expect(errorBody(res).details?.[0]).toMatchObject({ field: 'chargeId', rule: 'modeled' });
    const noScope = await call('POST', 'plan-change-rules', tenant.keys.admin, {
      name: 'x',
      changeTiming: 'immediate',
      prorationType: 'none',
    });
    expect(errorBody(noScope).details?.[0]).toMatchObject({ field: 'family', rule: 'required' });
  });
});
