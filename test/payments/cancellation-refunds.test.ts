import { and, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { billingRefunds } from '../../src/billing/builtin/tables.js';
import { FaultController, withFaults } from '../../src/billing/index.js';
import { ManualClock } from '../../src/clock.js';
import { listEvents } from '../../src/events/outbox.js';
import { creditEntries } from '../../src/modules/credits/tables.js';
import { refunds } from '../../src/modules/payments/tables.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { linkedBillingAccount, noCreditOnIssue } from '../support/billing-fixtures.js';
import { adminPost, perSeat } from '../support/catalog-fixtures.js';

// What a cancellation (and a change that credits) gives back: exactly the preview's figure, as
// account credit or as a refund of the subscription's last payment.

const START = new Date('2024-01-15T10:00:00.000Z');

let t: TestApp;
const clock = new ManualClock(START);
const faults = new FaultController();
let shop: TestTenant;
let billingId: string;
let org: { id: string };
let starter: { id: string };

beforeAll(async () => {
  t = await startApp({ clock, wrapBilling: (a) => withFaults(a, faults) });
});
afterAll(() => t.app.close());
beforeEach(async () => {
  clock.set(START);
  faults.reset();
  shop = await createTestTenant(t.deps);
  ({ billingId, account: org } = await linkedBillingAccount(t, shop, 'Initech'));
  starter = await adminPost(t, shop, 'products', perSeat('Starter', 1000, { entitlements: { seats: 5 } }));
  // No credit on issue here: the first invoice is paid by a payment, to have something to refund.
  await noCreditOnIssue(t, shop);
});

const post = (url: string, payload: object = {}, key = shop.keys.commerce) => api(t, key).post(url, payload);
const get = (url: string, key = shop.keys.read) => api(t, key).get(url);

/** A billing-linked subscription whose first invoice is paid by a successful payment session. */
const paidSubscription = async (quantity = 3, pay = true) => {
  const res = await post('/subscriptions', { productId: starter.id, quantity, organizationId: org.id });
  expect(res.statusCode, res.body).toBe(201);
  const sub = res.json().data as { id: string; billingSubscriptionId: string };
  const invoices = (await get(`/accounts/${billingId}/invoices`)).json().data as {
    id: string;
    balanceCents: number;
    subscriptionId: string;
  }[];
  const invoice = invoices.find((i) => i.subscriptionId === sub.billingSubscriptionId);
  if (!invoice) throw new Error('no first invoice');
  let sessionId: string | null = null;
  if (pay) {
    const session = await post(`/invoices/${invoice.id}/pay`, {
      accountId: billingId,
      amountCents: invoice.balanceCents,
      currency: 'USD',
    });
    sessionId = session.json().data.id;
    expect((await post(`/payments/${sessionId}/complete`)).statusCode).toBe(200);
  }
  return { sub, invoice, sessionId };
};
const preview = async (subscriptionId: string, refund: string) =>
  (
    await post('/preview/cancellation', { subscriptionId, timing: 'immediate', refund }, shop.keys.read)
  ).json().data;
const ledgerOf = async () =>
  t.deps.db
    .select()
    .from(creditEntries)
    .where(and(eq(creditEntries.tenantId, shop.tenantId), eq(creditEntries.organizationId, org.id)));

describe('cancellation with credit or refund: what is given back', () => {
  it('credit: the unused time, as previewed to the cent, goes to the account’s ledger', async () => {
    const { sub } = await paidSubscription(3);
    clock.set(new Date('2024-01-25T10:00:00.000Z'));
    const p = await preview(sub.id, 'credit');
    // 3 seats x 1000 for Jan 15 - Feb 15 (31 days); 21 days left.
    expect(p.financialImpact).toMatchObject({ creditCents: Math.round((3000 * 21) / 31), refundCents: 0 });
    const res = await post(`/subscriptions/${sub.id}/cancel`, {
      timing: 'immediate',
      refund: 'credit',
      previewId: p.previewId,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.status).toBe('cancelled');
    const ledger = await ledgerOf();
    expect(ledger.map((e) => [e.kind, e.amountCents, e.sourceType, e.sourceId])).toEqual([
      ['grant', p.financialImpact.creditCents, 'subscription', sub.id],
    ]);
    const granted = await listEvents(t.deps.db, shop.tenantId, 'credit.granted');
    expect(granted).toHaveLength(1);
  });

  it('refund: the unused time is refunded on the subscription’s last payment, recorded in billing', async () => {
    const { sub, sessionId } = await paidSubscription(2);
    clock.set(new Date('2024-02-01T10:00:00.000Z'));
    const p = await preview(sub.id, 'refund');
    const expected = p.financialImpact.refundCents;
    expect(expected).toBe(Math.round((2000 * 14) / 31));
    const res = await post(`/subscriptions/${sub.id}/cancel`, { timing: 'immediate', refund: 'refund' });
    expect(res.statusCode, res.body).toBe(200);
    const session = (await get(`/payments/${sessionId}`)).json().data;
    expect(session.refundedCents).toBe(expected);
    const listed = (await get(`/refunds?paymentId=${sessionId}`)).json().data;
    expect(listed).toMatchObject([
      { amountCents: expected, status: 'succeeded', reason: 'requested_by_customer' },
    ]);
    const recorded = await t.deps.db
      .select()
      .from(billingRefunds)
      .where(
        and(
          eq(billingRefunds.tenantId, shop.tenantId),
          eq(billingRefunds.paymentReference, sessionId as string),
        ),
      );
    expect(recorded.map((r) => r.amountCents)).toEqual([expected]);
    expect(await listEvents(t.deps.db, shop.tenantId, 'refund.succeeded')).toHaveLength(1);
  });

  it('refund after an early renewal: the billed period and the rest of this one, from the payments that paid them', async () => {
    const { sub, sessionId: first } = await paidSubscription(2);
    clock.set(new Date('2024-02-01T10:00:00.000Z'));
    const renewed = await post(`/subscriptions/${sub.id}/renew`);
    expect(renewed.json().data).toMatchObject({ renewal: 'early' });
    const second = renewed.json().data.paymentSessionId as string;
    expect((await post(`/payments/${second}/complete`)).statusCode).toBe(200);
    const p = await preview(sub.id, 'refund');
    // 14 of 31 days of 2000 left (903, half up), and the billed period whole (2000).
    expect(p.financialImpact.refundCents).toBe(903 + 2000);
    const res = await post(`/subscriptions/${sub.id}/cancel`, {
      timing: 'immediate',
      refund: 'refund',
      previewId: p.previewId,
    });
    expect(res.statusCode, res.body).toBe(200);
    // The newest payment first, for all it has; the rest from the one before.
    expect((await get(`/payments/${second}`)).json().data.refundedCents).toBe(2000);
    expect((await get(`/payments/${first}`)).json().data.refundedCents).toBe(903);
    const recorded = await t.deps.db
      .select()
      .from(billingRefunds)
      .where(eq(billingRefunds.tenantId, shop.tenantId));
    expect(recorded.map((r) => [r.paymentReference, r.amountCents]).sort()).toEqual(
      [
        [second, 2000],
        [first as string, 903],
      ].sort(),
    );
    expect(await listEvents(t.deps.db, shop.tenantId, 'refund.succeeded')).toHaveLength(2);
  });

  it('refuses what it cannot give back, changing nothing', async () => {
    const { sub } = await paidSubscription(1, false);
    clock.set(new Date('2024-01-20T10:00:00.000Z'));
    const unpaid = await post(`/subscriptions/${sub.id}/cancel`, { timing: 'immediate', refund: 'refund' });
    expect(unpaid.statusCode).toBe(409);
    expect(errorBody(unpaid).code).toBe('payment_not_refundable');
    const atEnd = await post(`/subscriptions/${sub.id}/cancel`, {
      timing: 'end_of_period',
      refund: 'credit',
    });
    expect(atEnd.statusCode).toBe(400);
    expect(errorBody(atEnd).details?.[0]).toMatchObject({ field: 'refund', rule: 'timing' });
    const p = await preview(sub.id, 'credit');
    const mismatch = await post(`/subscriptions/${sub.id}/cancel`, {
      refund: 'none',
      previewId: p.previewId,
    });
    expect(mismatch.statusCode).toBe(400);
    expect(errorBody(mismatch).details?.[0]).toMatchObject({ field: 'previewId', rule: 'matches' });
    expect((await get(`/subscriptions/${sub.id}`)).json().data.status).toBe('active');
    expect(await ledgerOf()).toEqual([]);
    const none = await t.deps.db.select().from(refunds).where(eq(refunds.tenantId, shop.tenantId));
    expect(none).toEqual([]);
  });
});

describe('cancellation with credit or refund: where credit goes, outages, and the preview property', () => {
  it('credit is kept only where it can pay: by the account linked to the billing account it came from', async () => {
    // An account without a link of its own, subscribed on the billing account `org` is linked to.
    const subsidiary = (await post('/accounts', { name: 'Initech Labs' })).json().data as { id: string };
    const created = await post('/subscriptions', {
      productId: starter.id,
      quantity: 2,
      organizationId: subsidiary.id,
      accountId: billingId,
    });
    expect(created.statusCode, created.body).toBe(201);
    const sub = created.json().data as { id: string };
    clock.set(new Date('2024-01-25T10:00:00.000Z'));
    const cancelled = await post(`/subscriptions/${sub.id}/cancel`, {
      timing: 'immediate',
      refund: 'credit',
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const credited = await ledgerOf();
    expect(credited.map((e) => [e.kind, e.sourceId])).toEqual([['grant', sub.id]]);
    const subsidiaryLedger = (await get(`/accounts/${subsidiary.id}/credits`)).json().data;
    expect(subsidiaryLedger.entries).toEqual([]);
    // ... and it pays that billing account's invoices.
    const engine = new BuiltinBilling(t.deps.db, clock, shop.tenantId);
    const open = await engine.createInvoice({
      accountId: billingId,
      currency: 'USD',
      lines: [{ description: 'next', quantity: 1, unitAmountCents: 5000 }],
      idempotencyKey: 'stranded-next',
    });
    if (!open.ok) throw new Error('invoice');
    const applied = await post(`/invoices/${open.value.id}/apply-credit`);
    expect(applied.statusCode, applied.body).toBe(200);
    expect(applied.json().data.application).toMatchObject({
      accountId: org.id,
      amountCents: -(credited[0]?.amountCents ?? 0),
    });

    // A billing account no account is linked to: no account could spend the credit, so refused.
    const orphan = (await engine.createAccount({ name: 'Nobody', currency: 'USD' })).id;
    const elsewhere = await post('/subscriptions', {
      productId: starter.id,
      quantity: 1,
      organizationId: subsidiary.id,
      accountId: orphan,
    });
    expect(elsewhere.statusCode, elsewhere.body).toBe(201);
    const orphanSub = elsewhere.json().data.id as string;
    const events = (await listEvents(t.deps.db, shop.tenantId)).length;
    const refused = await post(`/subscriptions/${orphanSub}/cancel`, {
      timing: 'immediate',
      refund: 'credit',
    });
    expect(refused.statusCode).toBe(400);
    expect(errorBody(refused).details?.[0]).toMatchObject({ field: 'refund', rule: 'linked' });
    expect((await get(`/subscriptions/${orphanSub}`)).json().data.status).toBe('active');
    expect((await listEvents(t.deps.db, shop.tenantId)).length).toBe(events);
    const all = await t.deps.db.select().from(creditEntries).where(eq(creditEntries.tenantId, shop.tenantId));
    expect(all.filter((e) => e.kind === 'grant')).toHaveLength(1);
  });

  it('a billing outage during the refund leaves the cancellation and its refund to the retry', async () => {
    const { sub, sessionId } = await paidSubscription(2);
    clock.set(new Date('2024-02-01T10:00:00.000Z'));
    faults.only = ['cancelSubscription'];
    faults.failNext = 1;
    const down = await post(`/subscriptions/${sub.id}/cancel`, { timing: 'immediate', refund: 'refund' });
    expect(down.statusCode).toBe(502);
    // Nothing took effect: the reservation went with the claim.
    expect((await get(`/payments/${sessionId}`)).json().data.refundedCents).toBe(0);
    expect((await get(`/refunds?paymentId=${sessionId}`)).json().data).toEqual([]);
    const again = await post(`/subscriptions/${sub.id}/cancel`, { timing: 'immediate', refund: 'refund' });
    expect(again.statusCode, again.body).toBe(200);
    expect((await get(`/payments/${sessionId}`)).json().data.refundedCents).toBeGreaterThan(0);
  });

  it('an immediate quantity decrease credits the ledger with what it gives back', async () => {
    starter = await adminPost(t, shop, 'products', perSeat('Team', 1000, { family: 'team', rank: 1 }));
    await adminPost(t, shop, 'plan-change-rules', {
      name: 'prorate seats',
      family: 'team',
      changeTiming: 'immediate',
      prorationType: 'prorated',
    });
    const { sub } = await paidSubscription(4);
    clock.set(new Date('2024-01-30T10:00:00.000Z'));
    const res = await post(`/subscriptions/${sub.id}/change-quantity`, { quantity: 1, timing: 'immediate' });
    expect(res.statusCode, res.body).toBe(200);
    const audit = (
      await get(`/audit-logs?resourceId=${sub.id}&action=subscription.change`, shop.keys.admin)
    ).json().data[0].details as { netCents: number };
    expect(audit.netCents).toBeLessThan(0);
    expect((await ledgerOf()).map((e) => e.amountCents)).toEqual([-audit.netCents]);
  });

  it('property: what a cancellation gives back equals its preview, to the cent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 30 * 24 - 1 }),
        fc.constantFrom('credit', 'refund'),
        async (quantity, hours, option) => {
          clock.set(START);
          const { sub, sessionId } = await paidSubscription(quantity);
          clock.set(new Date(START.getTime() + hours * 3_600_000));
          const p = await preview(sub.id, option);
          const figure = option === 'credit' ? p.financialImpact.creditCents : p.financialImpact.refundCents;
          const res = await post(`/subscriptions/${sub.id}/cancel`, {
            timing: 'immediate',
            refund: option,
            previewId: p.previewId,
          });
          expect(res.statusCode, res.body).toBe(200);
          if (option === 'credit') {
            const given = (await ledgerOf())
              .filter((e) => e.sourceId === sub.id)
              .reduce((s, e) => s + e.amountCents, 0);
            expect(given).toBe(figure);
          } else {
            expect((await get(`/payments/${sessionId}`)).json().data.refundedCents).toBe(figure);
          }
        },
      ),
      { numRuns: 8 },
    );
  });
});
