import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { billingRefunds } from '../../src/billing/builtin/tables.js';
import { ManualClock } from '../../src/clock.js';
import { runDueSubscriptionWork } from '../../src/modules/subscriptions/index.js';
import { createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { linkedBillingAccount, noCreditOnIssue } from '../support/billing-fixtures.js';
import { adminPost, perSeat } from '../support/catalog-fixtures.js';

// Issue 27, item 5: a period paid by an early renewal is not forfeited by a cancellation at the
// period end. `end_of_period` ends at the end of what was billed (`billedThrough`), or, asked with
// `refund: credit | refund`, gives that billed period back whole and ends at `currentPeriodEnd`.
// The preview says the same, and the scheduler ends the subscription at that instant.

const START = new Date('2024-01-15T10:00:00.000Z');
const FEB_1 = '2024-02-01T10:00:00.000Z';
const FEB_15 = '2024-02-15T10:00:00.000Z';
const MAR_15 = '2024-03-15T10:00:00.000Z';
/** Feb 15 to Mar 15, 2024 (a leap year). */
const BILLED_DAYS = 29;
const PRICE = 2000; // 2 seats x 1000

const justBefore = (iso: string) => new Date(new Date(iso).getTime() - 1);

interface Sub {
  id: string;
  billingSubscriptionId: string;
}

let t: TestApp;
const clock = new ManualClock(START);
let shop: TestTenant;
let billingId: string;
let org: { id: string };
let starter: { id: string };

beforeAll(async () => {
  t = await startApp({ clock });
});
afterAll(() => t.app.close());
// A tenant of its own per test: the scheduler's runs (limited to it) see only that test's work.
beforeEach(async () => {
  clock.set(START);
  shop = await createTestTenant(t.deps);
  ({ billingId, account: org } = await linkedBillingAccount(t, shop, 'Initech'));
  starter = await adminPost(t, shop, 'products', perSeat('Starter', 1000, { entitlements: { seats: 5 } }));
  // Invoices are paid by payments here (to have something to refund), not by credit on issue.
  await noCreditOnIssue(t, shop);
});

const post = (url: string, payload: object = {}, key = shop.keys.commerce) => api(t, key).post(url, payload);
const get = (url: string, key = shop.keys.read) => api(t, key).get(url);
const read = async (id: string) => (await get(`/subscriptions/${id}`)).json();
const runScheduler = () => runDueSubscriptionWork(t.deps, { tenantId: shop.tenantId });
const pay = async (sessionId: string) =>
  expect((await post(`/payments/${sessionId}/complete`)).statusCode).toBe(200);

/** A billing-linked subscription (2 seats, 2000 a month) whose first invoice is paid. */
const paidSubscription = async () => {
  const res = await post('/subscriptions', { productId: starter.id, quantity: 2, organizationId: org.id });
  expect(res.statusCode, res.body).toBe(201);
  const sub = res.json().data as Sub;
  const invoices = (await get(`/accounts/${billingId}/invoices`)).json().data as {
    id: string;
    balanceCents: number;
    subscriptionId: string;
  }[];
  const invoice = invoices.find((i) => i.subscriptionId === sub.billingSubscriptionId);
  if (!invoice) throw new Error('no first invoice');
  const session = await post(`/invoices/${invoice.id}/pay`, {
    accountId: billingId,
    amountCents: invoice.balanceCents,
    currency: 'USD',
  });
  const first = session.json().data.id as string;
  await pay(first);
  return { sub, first };
};
/** The subscription renewed early on Feb 1 (Feb 15 to Mar 15 billed), the renewal paid. */
const prepaid = async () => {
  const { sub, first } = await paidSubscription();
  clock.set(new Date(FEB_1));
  const renewed = await post(`/subscriptions/${sub.id}/renew`);
  expect(renewed.statusCode, renewed.body).toBe(200);
  expect(renewed.json().data).toMatchObject({ renewal: 'early', billedThrough: MAR_15 });
  const second = renewed.json().data.paymentSessionId as string;
  await pay(second);
  return { sub, first, second };
};
const previewCancel = async (subscriptionId: string, body: object) => {
  const res = await post('/preview/cancellation', { subscriptionId, ...body }, shop.keys.read);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};
const seatsOf = async () => (await get(`/accounts/${org.id}/entitlements`)).json().data.entitlements.seats;
const billingStatusOf = async (sub: Sub) =>
  ((await get(`/accounts/${billingId}/subscriptions`)).json().data as { id: string; status: string }[]).find(
    (s) => s.id === sub.billingSubscriptionId,
  )?.status;
const invoiceCount = async () =>
  ((await get(`/accounts/${billingId}/invoices`)).json().data as unknown[]).length;
const creditsOf = async () => (await get(`/accounts/${org.id}/credits`)).json().data;
const refundedOf = async (sessionId: string) =>
  (await get(`/payments/${sessionId}`)).json().data.refundedCents as number;
const cancelAudit = async (id: string) =>
  (await get(`/audit-logs?resourceId=${id}&action=subscription.cancel`, shop.keys.admin)).json().data as {
    details: { timing: string; effectiveDate: string; status: string };
  }[];

describe('cancellation at the period end after an early renewal: end_of_period', () => {
  it('end_of_period runs the billed period: granted until billedThrough, ended exactly then, as previewed', async () => {
    const { sub, first, second } = await prepaid();
    expect((await read(sub.id)).data).toMatchObject({ currentPeriodEnd: FEB_15, billedThrough: MAR_15 });

    const p = await previewCancel(sub.id, { timing: 'end_of_period' });
    expect(p).toMatchObject({
      timing: 'end_of_period',
      effectiveDate: MAR_15,
      financialImpact: { creditCents: 0, refundCents: 0, chargeCents: 0, netCents: 0 },
      unusedDays: 0,
      entitlementsLost: { seats: 5 },
    });
    const res = await post(`/subscriptions/${sub.id}/cancel`, { previewId: p.previewId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      status: 'pending_cancellation',
      currentPeriodEnd: FEB_15,
      billedThrough: MAR_15,
      cancelledAt: null,
    });
    expect(res.json().nextActions.map((a: { rel: string }) => a.rel)).not.toContain('renew');
    expect((await cancelAudit(sub.id))[0]?.details).toMatchObject({
      timing: 'end_of_period',
      effectiveDate: MAR_15,
      status: 'pending_cancellation',
    });
    expect(await billingStatusOf(sub)).toBe('pending_cancellation');

    // The period ends: it moves into the period it paid for, still ending, billing nothing.
    clock.set(justBefore(FEB_15));
    expect(await runScheduler()).toMatchObject({ renewed: 0, cancelled: 0 });
    clock.set(new Date(FEB_15));
    const invoices = await invoiceCount();
    expect(await runScheduler()).toMatchObject({ renewed: 1, cancelled: 0, failed: [] });
    expect((await read(sub.id)).data).toMatchObject({
      status: 'pending_cancellation',
      currentPeriodStart: FEB_15,
      currentPeriodEnd: MAR_15,
      billedThrough: MAR_15,
      cancelledAt: null,
    });
    expect(await invoiceCount()).toBe(invoices);
    expect(await seatsOf()).toBe(5);
    const renewAgain = await post(`/subscriptions/${sub.id}/renew`);
    expect(renewAgain.statusCode).toBe(409);
    expect(errorBody(renewAgain).code).toBe('conflict');
    expect(await runScheduler()).toMatchObject({ renewed: 0, cancelled: 0 });

    // Granted to the last instant of what was paid, ended at exactly that instant.
    clock.set(justBefore(MAR_15));
    expect(await runScheduler()).toMatchObject({ renewed: 0, cancelled: 0 });
    expect(await seatsOf()).toBe(5);
    clock.set(new Date(MAR_15));
    expect(await runScheduler()).toMatchObject({ renewed: 0, cancelled: 1, failed: [] });
    expect((await read(sub.id)).data).toMatchObject({ status: 'cancelled', cancelledAt: MAR_15 });
    expect(await seatsOf()).toBeUndefined();
    expect(await billingStatusOf(sub)).toBe('cancelled');
    expect(await invoiceCount()).toBe(invoices);
    // Nothing was given back: both payments stand, no credit.
    expect([await refundedOf(first), await refundedOf(second)]).toEqual([0, 0]);
    expect((await creditsOf()).entries).toEqual([]);
  });

  it('end_of_period with refund: the billed period is refunded whole from its payment, as previewed; ends at currentPeriodEnd', async () => {
    const { sub, first, second } = await prepaid();
    clock.set(new Date('2024-02-10T10:00:00.000Z'));
    const p = await previewCancel(sub.id, { timing: 'end_of_period', refund: 'refund' });
    expect(p).toMatchObject({
      effectiveDate: FEB_15,
      financialImpact: { creditCents: 0, refundCents: PRICE, netCents: -PRICE },
      unusedDays: BILLED_DAYS,
    });
    const res = await post(`/subscriptions/${sub.id}/cancel`, {
      timing: 'end_of_period',
      refund: 'refund',
      previewId: p.previewId,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      status: 'pending_cancellation',
      currentPeriodEnd: FEB_15,
      billedThrough: FEB_15,
    });
    // The billed period's own payment gives it back; the current period's is kept.
    expect(await refundedOf(second)).toBe(PRICE);
    expect(await refundedOf(first)).toBe(0);
    expect((await get(`/refunds?paymentId=${second}`)).json().data).toMatchObject([
      { amountCents: PRICE, status: 'succeeded', reason: 'requested_by_customer' },
    ]);
    const recorded = await t.deps.db
      .select()
      .from(billingRefunds)
      .where(and(eq(billingRefunds.tenantId, shop.tenantId), eq(billingRefunds.paymentReference, second)));
    expect(recorded.map((r) => r.amountCents)).toEqual([PRICE]);
    expect((await cancelAudit(sub.id))[0]?.details).toMatchObject({ effectiveDate: FEB_15 });

    // Granted to the end of the current period, ended exactly then: the refunded period is not run.
    clock.set(justBefore(FEB_15));
    expect(await runScheduler()).toMatchObject({ renewed: 0, cancelled: 0 });
    expect(await seatsOf()).toBe(5);
    clock.set(new Date(FEB_15));
    expect(await runScheduler()).toMatchObject({ renewed: 0, cancelled: 1, failed: [] });
    expect((await read(sub.id)).data).toMatchObject({ status: 'cancelled', cancelledAt: FEB_15 });
    expect(await seatsOf()).toBeUndefined();
    expect(await billingStatusOf(sub)).toBe('cancelled');
  });

  it('at exactly currentPeriodEnd, before the scheduler ran: credit gives the billed period back; none runs it', async () => {
    const credited = await prepaid();
    clock.set(START);
    const kept = await prepaid();
    clock.set(new Date(FEB_15));

    // With credit: ends at this very instant, the billed period credited whole to the ledger.
    const p = await previewCancel(credited.sub.id, { timing: 'end_of_period', refund: 'credit' });
    expect(p).toMatchObject({
      effectiveDate: FEB_15,
      financialImpact: { creditCents: PRICE, refundCents: 0, netCents: -PRICE },
      unusedDays: BILLED_DAYS,
    });
    const res = await post(`/subscriptions/${credited.sub.id}/cancel`, {
      refund: 'credit',
      previewId: p.previewId,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'pending_cancellation', billedThrough: FEB_15 });
    const ledger = await creditsOf();
    expect(ledger.balances).toEqual([expect.objectContaining({ currency: 'USD', balanceCents: PRICE })]);
    expect(ledger.entries).toMatchObject([
      { kind: 'grant', amountCents: PRICE, sourceType: 'subscription', sourceId: credited.sub.id },
    ]);
    expect(await refundedOf(credited.second)).toBe(0);

    // Without: it still runs the period it paid for.
    const q = await previewCancel(kept.sub.id, {});
    expect(q).toMatchObject({ effectiveDate: MAR_15, financialImpact: { creditCents: 0, refundCents: 0 } });
    const keptRes = await post(`/subscriptions/${kept.sub.id}/cancel`, { previewId: q.previewId });
    expect(keptRes.statusCode, keptRes.body).toBe(200);
    expect(keptRes.json().data).toMatchObject({ status: 'pending_cancellation', billedThrough: MAR_15 });

    // One run: the credited one ends now; the other moves into its billed period.
    expect(await runScheduler()).toMatchObject({ renewed: 1, cancelled: 1, failed: [] });
    expect((await read(credited.sub.id)).data).toMatchObject({ status: 'cancelled', cancelledAt: FEB_15 });
    expect((await read(kept.sub.id)).data).toMatchObject({
      status: 'pending_cancellation',
      currentPeriodEnd: MAR_15,
    });
    // Both belong to the one account: the kept one still grants.
    expect(await seatsOf()).toBe(5);
    clock.set(new Date(MAR_15));
    expect(await runScheduler()).toMatchObject({ renewed: 0, cancelled: 1, failed: [] });
    expect((await read(kept.sub.id)).data).toMatchObject({ status: 'cancelled', cancelledAt: MAR_15 });
    expect(await seatsOf()).toBeUndefined();
    expect((await creditsOf()).entries).toHaveLength(1);
  });
});

describe('cancellation at the period end after an early renewal: catch-up, immediate, and the document', () => {
  it('the scheduler down past both ends catches up: runs the billed period, then ends it at billedThrough', async () => {
    const { sub } = await prepaid();
    expect((await post(`/subscriptions/${sub.id}/cancel`, { timing: 'end_of_period' })).statusCode).toBe(200);
    clock.set(new Date('2024-04-01T00:00:00.000Z'));
    expect(await runScheduler()).toMatchObject({ renewed: 1, cancelled: 1, failed: [] });
    expect((await read(sub.id)).data).toMatchObject({
      status: 'cancelled',
      currentPeriodStart: FEB_15,
      currentPeriodEnd: MAR_15,
      cancelledAt: MAR_15,
    });
  });

  it('without an early renewal: as before, it ends at currentPeriodEnd and credit or refund is refused', async () => {
    const { sub, first } = await paidSubscription();
    clock.set(new Date(FEB_1));
    expect((await read(sub.id)).data).toMatchObject({ currentPeriodEnd: FEB_15, billedThrough: FEB_15 });
    for (const refund of ['credit', 'refund']) {
      const refused = await post(`/subscriptions/${sub.id}/cancel`, { timing: 'end_of_period', refund });
      expect(refused.statusCode).toBe(400);
      expect(errorBody(refused).details?.[0]).toMatchObject({ field: 'refund', rule: 'timing' });
      const previewed = await post(
        '/preview/cancellation',
        { subscriptionId: sub.id, timing: 'end_of_period', refund },
        shop.keys.read,
      );
      expect(previewed.statusCode).toBe(400);
      expect(errorBody(previewed).details?.[0]).toMatchObject({ field: 'refund', rule: 'timing' });
    }
    expect((await read(sub.id)).data).toMatchObject({ status: 'active', version: 1 });
    const p = await previewCancel(sub.id, {});
    expect(p).toMatchObject({ effectiveDate: FEB_15, unusedDays: 0, financialImpact: { netCents: 0 } });
    const res = await post(`/subscriptions/${sub.id}/cancel`, { previewId: p.previewId });
    expect(res.json().data).toMatchObject({ status: 'pending_cancellation', billedThrough: FEB_15 });
    clock.set(new Date(FEB_15));
    expect(await runScheduler()).toMatchObject({ renewed: 0, cancelled: 1, failed: [] });
    expect((await read(sub.id)).data).toMatchObject({ status: 'cancelled', cancelledAt: FEB_15 });
    expect(await refundedOf(first)).toBe(0);
    expect((await creditsOf()).entries).toEqual([]);
  });

  it('immediate after an early renewal counts the billed period among the days given up', async () => {
    const { sub } = await prepaid();
    const p = await previewCancel(sub.id, { timing: 'immediate', refund: 'credit' });
    // Feb 1 to Feb 15: 14 of 31 days left (903 of 2000, half up), and the billed period whole.
    expect(p).toMatchObject({
      effectiveDate: FEB_1,
      financialImpact: { creditCents: 903 + PRICE },
      unusedDays: 14 + BILLED_DAYS,
    });
    const res = await post(`/subscriptions/${sub.id}/cancel`, { previewId: p.previewId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'cancelled', cancelledAt: FEB_1, billedThrough: FEB_15 });
    expect((await creditsOf()).entries).toMatchObject([{ amountCents: 903 + PRICE }]);
  });

  it('billedThrough is in the document: required on the Subscription schema, described for agents', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      components: {
        schemas: Record<
          string,
          { required?: string[]; properties: Record<string, { description?: string }> }
        >;
      };
    };
    const schema = doc.components.schemas.Subscription;
    expect(schema?.required).toContain('billedThrough');
    expect(schema?.properties.billedThrough).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schema?.properties.billedThrough?.description).toContain('early renewal');
  });
});
