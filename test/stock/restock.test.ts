import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { listEvents } from '../../src/events/outbox.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { linkedBillingAccount, noCreditOnIssue } from '../support/billing-fixtures.js';
import { adminPost } from '../support/catalog-fixtures.js';

// A refund puts back the units it names (`restockItems`) or every unit left (`restock: true`):
// never more than a line sold, never a unit twice (refunds racing, a line already back), with the
// field named when refused and nothing written; audited and emitted as `product.restocked`.

let t: TestApp;
let tenant: TestTenant;
const clock = new ManualClock(new Date('2026-06-01T10:00:00Z'));
const CONTACT = '01900000-0000-7000-8000-0000000000c8';

const widget = async (onHand: number | null) => {
  const p = (await adminPost(t, tenant, 'products', {
    name: `Widget ${randomUUID().slice(0, 8)}`,
    type: 'one_time',
    currency: 'USD',
    charges: [{ name: 'Unit', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 1000 }] }],
  })) as { id: string };
  if (onHand !== null) {
    const set = await admin().put(`/admin/products/${p.id}/stock`, { tracked: true, onHand });
    expect(set.statusCode, set.body).toBe(200);
  }
  return p.id;
};
const admin = () => api(t, tenant.keys.admin);
const shop = () => api(t, tenant.keys.commerce);
const stockOf = async (productId: string) =>
  (await admin().get(`/admin/products/${productId}/stock`)).json().data;

/** A placed and paid order of `items`; the payment session's id (no invoice unless `accountId`). */
async function paidOrder(
  items: { productId: string; quantity: number }[],
  billing?: { orgId: string; billingId: string },
) {
  const buyer = billing ? { organizationId: billing.orgId } : { contactId: CONTACT };
  const placed = await shop().post('/orders', { ...buyer, items });
  expect(placed.statusCode, placed.body).toBe(201);
  const o = placed.json().data as { id: string; totalCents: number };
  const session = await shop().post('/payments', {
    accountId: billing?.billingId ?? 'cust_1',
    amountCents: o.totalCents,
    currency: 'USD',
    orderId: o.id,
  });
  expect(session.statusCode, session.body).toBe(201);
  const id = session.json().data.id as string;
  const done = await shop().post(`/payments/${id}/complete`, {});
  expect(done.statusCode, done.body).toBe(200);
  return { orderId: o.id, sessionId: id, invoiced: session.json().data.invoiceId !== null };
}
const refund = (sessionId: string, body: object) =>
  shop().post(
    `/payments/${sessionId}/refunds`,
    { reason: 'requested_by_customer', amountCents: 100, ...body },
    { idempotencyKey: randomUUID() },
  );
const refundsOf = async (sessionId: string) =>
  (await api(t, tenant.keys.read).get(`/refunds?paymentId=${sessionId}`)).json().data as {
    restock: unknown[];
  }[];

beforeAll(async () => {
  t = await startApp({ clock });
  tenant = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());

describe('refunds restock per line', () => {
  it('puts back the named units only; the rest move with the order; restock: true takes what is left', async () => {
    const a = await widget(10);
    const b = await widget(5);
    const { orderId, sessionId } = await paidOrder([
      { productId: a, quantity: 3 },
      { productId: b, quantity: 2 },
    ]);
    expect(await stockOf(a)).toMatchObject({ onHand: 10, reserved: 3 });

    const first = await refund(sessionId, { restockItems: [{ productId: a, quantity: 2 }] });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().data.restock).toEqual([{ productId: a, quantity: 2 }]);
    expect(await stockOf(a)).toMatchObject({ onHand: 10, reserved: 1, available: 9 });
    expect(await stockOf(b)).toMatchObject({ reserved: 2 });

    // Fulfilling consumes only what is still held: 1 of a, 2 of b.
    const fulfil = await shop().patch(`/orders/${orderId}`, { status: 'fulfilled' });
    expect(fulfil.statusCode, fulfil.body).toBe(200);
    expect(await stockOf(a)).toMatchObject({ onHand: 9, reserved: 0 });
    expect(await stockOf(b)).toMatchObject({ onHand: 3, reserved: 0 });

    const rest = await refund(sessionId, { restock: true });
    expect(rest.statusCode, rest.body).toBe(201);
    expect(rest.json().data.restock).toEqual(
      expect.arrayContaining([
        { productId: a, quantity: 1 },
        { productId: b, quantity: 2 },
      ]),
    );
    expect(await stockOf(a)).toMatchObject({ onHand: 10, reserved: 0 });
    expect(await stockOf(b)).toMatchObject({ onHand: 5, reserved: 0 });
    // Nothing left: restock: true moves nothing, restockItems is refused.
    const again = await refund(sessionId, { restock: true });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().data.restock).toEqual([]);
    expect(await stockOf(a)).toMatchObject({ onHand: 10 });

    const events = (await listEvents(t.deps.db, tenant.tenantId, 'product.restocked')).filter(
      (e) => (e.payload as { orderId: string }).orderId === orderId,
    );
    expect(events.map((e) => (e.payload as { quantity: number }).quantity).sort()).toEqual([1, 2, 2]);
    const audit = (await admin().get(`/audit-logs?action=refund.create`)).json().data as {
      resourceId: string;
      details: { restock?: unknown };
    }[];
    expect(audit.find((e) => e.resourceId === first.json().data.id)?.details.restock).toEqual([
      { productId: a, quantity: 2 },
    ]);
  });

  it('refuses more than sold (400), more than is left (409), untracked or foreign lines (400), naming the field; nothing written', async () => {
    const a = await widget(10);
    const untracked = await widget(null);
    const { sessionId } = await paidOrder([
      { productId: a, quantity: 3 },
      { productId: untracked, quantity: 1 },
    ]);
    expect((await refund(sessionId, { restockItems: [{ productId: a, quantity: 2 }] })).statusCode).toBe(201);

    const cases: [object, number, string, string][] = [
      [{ restockItems: [{ productId: a, quantity: 4 }] }, 400, 'restockItems.0.quantity', 'max_sold'],
      [{ restockItems: [{ productId: a, quantity: 2 }] }, 409, 'restockItems.0.quantity', 'restockable'],
      [
        { restockItems: [{ productId: untracked, quantity: 1 }] },
        400,
        'restockItems.0.productId',
        'tracked_line',
      ],
      [
        { restockItems: [{ productId: randomUUID(), quantity: 1 }] },
        400,
        'restockItems.0.productId',
        'tracked_line',
      ],
      [
        {
          restockItems: [
            { productId: a, quantity: 1 },
            { productId: a, quantity: 1 },
          ],
        },
        400,
        'restockItems.1.productId',
        'unique',
      ],
      [{ restock: true, restockItems: [{ productId: a, quantity: 1 }] }, 400, 'restockItems', 'exclusive'],
      [{ restockItems: [{ productId: a, quantity: 0 }] }, 400, 'restockItems.0.quantity', 'minimum'],
      [{ restockItems: [] }, 400, 'restockItems', 'minItems'],
    ];
    for (const [body, status, field, rule] of cases) {
      const res = await refund(sessionId, body);
      expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).toBe(status);
      expect(errorBody(res).details?.[0], res.body).toMatchObject({ field, rule });
    }
    expect(await refundsOf(sessionId)).toHaveLength(1);
    expect(await stockOf(a)).toMatchObject({ onHand: 10, reserved: 1 });
  });

  it('a payment of no order takes no restockItems (400); another tenant’s payment is 404', async () => {
    const created = await shop().post('/payments', {
      accountId: 'cust_1',
      amountCents: 500,
      currency: 'USD',
    });
    const id = created.json().data.id as string;
    expect((await shop().post(`/payments/${id}/complete`, {})).statusCode).toBe(200);
    const a = await widget(1);
    const res = await refund(id, { restockItems: [{ productId: a, quantity: 1 }] });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorBody(res).details?.[0]).toMatchObject({ field: 'restockItems', rule: 'order' });
    const other = await createTestTenant(t.deps);
    const foreign = await api(t, other.keys.commerce).post(
      `/payments/${id}/refunds`,
      { reason: 'other', amountCents: 100, restock: true },
      { idempotencyKey: randomUUID() },
    );
    expect(foreign.statusCode).toBe(404);
  });

  it('two refunds racing for the same units: one restocks them, the other is 409 (invoiced order, through the billing system)', async () => {
    await noCreditOnIssue(t, tenant);
    const billing = await linkedBillingAccount(t, tenant);
    const a = await widget(10);
    const { sessionId, invoiced } = await paidOrder([{ productId: a, quantity: 3 }], billing);
    expect(invoiced).toBe(true);
    const results = await Promise.all(
      [0, 1].map(() => refund(sessionId, { restockItems: [{ productId: a, quantity: 2 }] })),
    );
    expect(results.map((r) => r.statusCode).sort(), results.map((r) => r.body).join('\n')).toEqual([
      201, 409,
    ]);
    const refused = results.filter((r) => r.statusCode === 409);
    expect(errorBody(refused[0] as (typeof results)[number]).details?.[0]).toMatchObject({
      field: 'restockItems.0.quantity',
      rule: 'restockable',
    });
    expect(await stockOf(a)).toMatchObject({ onHand: 10, reserved: 1 });
    // The last unit, then nothing: restock: true is a no-op.
    expect((await refund(sessionId, { restockItems: [{ productId: a, quantity: 1 }] })).statusCode).toBe(201);
    expect((await refund(sessionId, { restock: true })).json().data.restock).toEqual([]);
    expect(await stockOf(a)).toMatchObject({ onHand: 10, reserved: 0, available: 10 });
  });
});
