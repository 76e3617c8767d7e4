import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSeedFile, SeedError, seedCatalog } from '../../src/seed/catalog.js';
import { DEMO_CATALOG } from '../../src/seed/demo.js';
import { seedDemoBilling } from '../../src/seed/demo-billing.js';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';

const PRO = '0190a000-0000-7000-8000-000000000002';
const PRO_SEATS = '0190a000-0000-7000-8000-0000000000a2';

describe('seed files', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await startApp();
    tenant = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  const get = (url: string, key = tenant.keys.admin) => api(t, key).get(url);

  it('loads the demo catalog with everything the quick start promises', async () => {
    const report = await seedCatalog(t.deps.db, tenant.tenantId, readSeedFile(DEMO_CATALOG));
    expect(report).toEqual({
      created: {
        products: 6,
        priceRules: 1,
        offers: 1,
        promotions: 1,
        planLinks: 1,
        planChangeRules: 1,
        policies: 1,
        shippingOptions: 2,
      },
      updated: {},
    });
    const catalog = (await get('/catalog', tenant.keys.read)).json().data as {
      name: string;
      type: string;
      family: string | null;
      charges: { kind: string; chargeModel: string | null }[];
    }[];
    expect(catalog.map((p) => p.name).sort()).toEqual([
      'Basic',
      'Extra storage',
      'Hardware key',
      'Onboarding workshop',
      'Pro',
      'Pro Annual',
    ]);
    expect(catalog.filter((p) => p.family === 'workspace')).toHaveLength(3);
    const types = new Set(catalog.map((p) => p.type));
    expect(types).toEqual(new Set(['subscription', 'add_on', 'one_time']));
    const models = new Set(catalog.flatMap((p) => p.charges.map((c) => c.chargeModel ?? c.kind)));
    for (const m of ['per_unit', 'tiered', 'volume', 'flat_fee', 'passthrough']) expect(models).toContain(m);
    // The segment price rule and the active offer take effect.
    const nonprofit = (
      await get(`/pricing/resolve?productId=${PRO}&quantity=5&segment=nonprofit`, tenant.keys.read)
    ).json().data;
    expect(nonprofit.appliedPriceRules).toEqual([
      { id: '0190a000-0000-7000-8000-000000000101', name: 'Nonprofit seats', chargeId: PRO_SEATS },
    ]);
    const annual = (
      await get(
        '/pricing/resolve?productId=0190a000-0000-7000-8000-000000000003&quantity=5',
        tenant.keys.read,
      )
    ).json().data;
    expect(annual.appliedOffers).toHaveLength(1);
    expect((await get('/admin/promotions')).json().data[0].code).toBe('WELCOME10');
    expect((await get('/admin/policies')).json().data[0].type).toBe('order_create');
    expect((await get('/shipping-options?country=us', tenant.keys.read)).json().data).toHaveLength(2);
    expect((await get('/shipping-options?country=FR', tenant.keys.read)).json().data).toHaveLength(1);
    const audit = (await get('/audit-logs?action=product.create')).json();
    expect(audit.pagination.total).toBe(6);
    expect(audit.data[0].actor).toEqual({ keyId: null, userId: null });
  });

  it('is idempotent: loading again updates the same items', async () => {
    const other = await createTestTenant(t.deps);
    await seedCatalog(t.deps.db, other.tenantId, readSeedFile(DEMO_CATALOG));
    const again = await seedCatalog(t.deps.db, other.tenantId, readSeedFile(DEMO_CATALOG));
    expect(again.created).toEqual({});
    expect(again.updated.products).toBe(6);
    expect((await get('/catalog', other.keys.read)).json().data).toHaveLength(6);
  });

  it('names every problem by its place in the file and writes nothing', async () => {
    const fresh = await createTestTenant(t.deps);
    const doc = {
      products: [
        {
          id: PRO,
          name: 'Ok',
          type: 'one_time',
          currency: 'USD',
          charges: [
            {
              name: 'c',
              chargeModel: 'flat_fee',
              tiers: [{ upTo: null, unitPriceCents: 0, flatPriceCents: 10 }],
            },
          ],
        },
      ],
      priceRules: [
        {
          name: 'Bad',
          productId: PRO,
          chargeId: '0190a000-0000-7000-8000-00000000ffff',
          segment: 'x',
          tiers: [{ upTo: null, unitPriceCents: 1 }],
        },
      ],
    };
    await expect(seedCatalog(t.deps.db, fresh.tenantId, doc)).rejects.toThrow(SeedError);
    await expect(seedCatalog(t.deps.db, fresh.tenantId, doc)).rejects.toMatchObject({
      problems: [
        'priceRules[0].chargeId 0190a000-0000-7000-8000-00000000ffff is not a charge of the product',
      ],
    });
    expect((await get('/admin/products', fresh.keys.admin)).json().data).toEqual([]);
    await expect(
      seedCatalog(t.deps.db, fresh.tenantId, {
        products: [{ name: '', type: 'gadget' }],
        offers: 'x',
        colours: [],
      }),
    ).rejects.toMatchObject({
      problems: expect.arrayContaining([
        'products[0].name must NOT have fewer than 1 characters',
        'products[0].type must be one of: one_time, subscription, add_on',
        'products[0].currency is required',
        'offers: must be a list',
        expect.stringMatching(/^colours: not a known section/),
      ]),
    });
  });

  it('gives the demo tenant billing: builtin integration, two open invoices and one paid, a card, a linked account', async () => {
    const fresh = await createTestTenant(t.deps);
    const demo = await t.deps.db.transaction((tx) => seedDemoBilling(tx, fresh.tenantId, t.deps.clock));
    const invoices = (await get(`/accounts/${demo.accountId}/invoices`, fresh.keys.read)).json().data as {
      status: string;
      amount: number;
    }[];
    expect(invoices.map((i) => i.status).sort()).toEqual(['open', 'open', 'paid']);
    expect(invoices.map((i) => i.amount).sort((a, b) => a - b)).toEqual([125, 125, 1500]);
    const billing = (await get(`/accounts/${demo.billingAccountId}`, fresh.keys.read)).json().data;
    expect(billing).toMatchObject({
      source: 'billing',
      name: 'Acme Corp',
      balanceCents: 162_500,
      balance: 1625,
    });
    const methods = (await get(`/accounts/${demo.accountId}/payment-methods`, fresh.keys.read)).json().data;
    expect(methods).toEqual([
      expect.objectContaining({ lastFour: '4242', isDefault: true, source: 'billing' }),
    ]);
  });

  it('reads JSON as well as YAML, and reports unparsable files', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seed-'));
    const json = path.join(dir, 'catalog.json');
    fs.writeFileSync(json, JSON.stringify({ products: [] }));
    expect(readSeedFile(json)).toEqual({ products: [] });
    const broken = path.join(dir, 'broken.yaml');
    fs.writeFileSync(broken, 'products: [\n');
    expect(() => readSeedFile(broken)).toThrow(/broken\.yaml: not valid YAML/);
    fs.rmSync(dir, { recursive: true });
  });
});
