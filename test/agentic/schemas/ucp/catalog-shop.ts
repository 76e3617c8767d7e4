import { expect } from 'vitest';
import type { TestApp, TestTenant } from '../../../harness.js';
import { api } from '../../../support/api.js';
import { adminPost } from '../../../support/catalog-fixtures.js';
import { ucpAgent } from './platform.js';

// A tenant's catalog for the UCP catalog tests: products with content in English (one also in
// French, with a slug and an offer), stock states, a product without content, a draft, an
// inactive product; and another tenant's product. And the catalog calls as a platform makes them.

export const KITCHEN = 'Home & Garden > Kitchen & Dining';

const productBody = (name: string, cents: number, extra: object = {}) => ({
  name,
  type: 'one_time',
  currency: 'USD',
  entitlements: {},
  charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: cents }] }],
  ...extra,
});

async function ok(res: Promise<{ statusCode: number; body: string }>, status = 200) {
  const done = await res;
  expect(done.statusCode, done.body).toBe(status);
}

export async function stockCatalog(t: TestApp, shop: TestTenant, other: TestTenant) {
  const admin = api(t, shop.keys.admin);
  const product = async (name: string, cents: number, extra: object = {}) =>
    (await adminPost(t, shop, 'products', productBody(name, cents, extra))).id as string;
  const withContent = async (name: string, cents: number, content: object) => {
    const id = await product(name, cents);
    await ok(admin.put(`/admin/products/${id}/content/en`, content));
    return id;
  };
  const knife = await withContent('Knife', 8900, {
    title: 'Chef knife 20 cm',
    description: 'A forged **steel** blade for everyday cutting.',
    brand: 'Acme',
    category: `${KITCHEN} > Knives`,
    gtin: '4006381333931',
    mpn: 'CK-20',
    condition: 'new',
    attributes: [{ key: 'material', type: 'string', value: 'carbon steel' }],
    media: [{ url: 'https://cdn.acme.example/knife.jpg', type: 'image', alt: 'The knife', position: 0 }],
  });
  await ok(
    admin.put(`/admin/products/${knife}/content/fr`, {
      title: 'Couteau de chef 20 cm',
      description: 'Une lame en **acier** forgé.',
      brand: 'Acme',
      category: `${KITCHEN} > Knives`,
    }),
  );
  await ok(admin.patch(`/admin/products/${knife}/content`, { slug: 'chef-knife-20cm' }));
  await adminPost(t, shop, 'offers', {
    name: 'Launch',
    productId: knife,
    discountType: 'percent',
    percentOff: 20,
    startsAt: '2026-01-01T00:00:00Z',
  });
  const mug = await withContent('Mug', 1500, {
    title: 'Coffee mug 350 ml',
    description: 'Stoneware, dishwasher safe.',
    brand: 'Brewco',
    category: `${KITCHEN} > Drinkware`,
  });
  await ok(admin.put(`/admin/products/${mug}/stock`, { tracked: true, onHand: 0 }));
  const paring = await withContent('Paring', 2900, {
    title: 'Paring knife 9 cm',
    brand: 'Acme',
    category: `${KITCHEN} > Knives`,
  });
  await ok(
    admin.put(`/admin/products/${paring}/stock`, { tracked: true, onHand: 0, availability: 'backorder' }),
  );
  const workshop = await product('Knife sharpening workshop', 5000, { description: 'Two hours, hands on.' });
  const draft = await withContent('Secret', 1000, { title: 'Secret knife prototype' });
  await ok(admin.patch(`/admin/products/${draft}/content`, { status: 'draft' }));
  const inactive = await product('Retired knife', 1000, { active: false });
  const foreign = (await adminPost(t, other, 'products', productBody('Foreign knife', 100))).id as string;
  await ok(
    admin.patch('/seller', { displayName: 'Acme Kitchen', returnPolicyUrl: 'https://acme.example/returns' }),
  );
  return { knife, mug, paring, workshop, draft, inactive, foreign };
}

/** The UCP catalog REST calls as one platform (its profile URL) makes them with one key. */
export function catalogClient(t: TestApp, key: string, profileUrl: string) {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: `/ucp/v1/catalog/${path}`,
      headers: { authorization: `Bearer ${key}`, ...ucpAgent(profileUrl), ...headers },
      payload: body as object,
    });
  return {
    search: (body: unknown, headers?: Record<string, string>) => post('search', body, headers),
    lookup: (body: unknown, headers?: Record<string, string>) => post('lookup', body, headers),
    product: (body: unknown, headers?: Record<string, string>) => post('product', body, headers),
  };
}
