import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { adminPost } from '../support/catalog-fixtures.js';

// Stock is shown where products are read: `GET /catalog` (availability and the units available,
// as catalog search shows them) and the admin product resource (the whole stock, as
// GET /admin/products/{id}/stock reads it).

let t: TestApp;
let tenant: TestTenant;

const widget = async (onHand: number | null) => {
  const p = (await adminPost(t, tenant, 'products', {
    name: `Widget ${randomUUID().slice(0, 8)}`,
    type: 'one_time',
    currency: 'USD',
    charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 1000 }] }],
  })) as { id: string };
  if (onHand !== null) await admin().put(`/admin/products/${p.id}/stock`, { tracked: true, onHand });
  return p.id;
};
const admin = () => api(t, tenant.keys.admin);

beforeAll(async () => {
  t = await startApp();
  tenant = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

describe('stock shown with products', () => {
  it('GET /catalog shows availability and the units available (null when untracked)', async () => {
    const tracked = await widget(4);
    const soldOut = await widget(0);
    const untracked = await widget(null);
    const placed = await api(t, tenant.keys.commerce).post('/orders', {
      contactId: '01900000-0000-7000-8000-0000000000c9',
      items: [{ productId: tracked, quantity: 1 }],
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const res = await api(t, tenant.keys.read).get('/catalog?limit=100');
    expect(res.statusCode, res.body).toBe(200);
    const byId = new Map(
      (res.json().data as { id: string; availability: string; available: number | null }[]).map((p) => [
        p.id,
        p,
      ]),
    );
    expect(byId.get(tracked)).toMatchObject({ availability: 'in_stock', available: 3 });
    expect(byId.get(soldOut)).toMatchObject({ availability: 'out_of_stock', available: 0 });
    expect(byId.get(untracked)).toMatchObject({ availability: 'in_stock', available: null });
  });

  it('the admin product resource shows its stock: get, list, update (not in the audit diff)', async () => {
    const id = await widget(7);
    const got = await admin().get(`/admin/products/${id}`);
    expect(got.statusCode, got.body).toBe(200);
    expect(got.json().data.stock).toEqual({
      productId: id,
      tracked: true,
      onHand: 7,
      reserved: 0,
      available: 7,
      lowStockThreshold: null,
      availability: 'in_stock',
      updatedAt: expect.any(String),
    });
    const listed = (await admin().get('/admin/products')).json().data as { id: string; stock: unknown }[];
    expect(listed.find((p) => p.id === id)?.stock).toMatchObject({ tracked: true, onHand: 7 });
    const untracked = await widget(null);
    expect((await admin().get(`/admin/products/${untracked}`)).json().data.stock).toMatchObject({
      tracked: false,
      availability: 'in_stock',
      updatedAt: null,
    });

    const patched = await admin().patch(`/admin/products/${id}`, { name: 'Renamed widget' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().data).toMatchObject({ name: 'Renamed widget', stock: { onHand: 7 } });
    const audit = (await admin().get('/audit-logs?action=product.update')).json().data as {
      resourceId: string;
      details: Record<string, unknown>;
    }[];
    const entry = audit.find((e) => e.resourceId === id);
    expect(JSON.stringify(entry?.details)).toContain('Renamed widget');
    expect(JSON.stringify(entry?.details)).not.toContain('onHand');
  });

  it('another tenant’s product is 404; a read key is 403', async () => {
    const id = await widget(1);
    const other = await createTestTenant(t.deps);
    expect((await api(t, other.keys.admin).get(`/admin/products/${id}`)).statusCode).toBe(404);
    expect((await api(t, tenant.keys.read).get(`/admin/products/${id}`)).statusCode).toBe(403);
  });
});
