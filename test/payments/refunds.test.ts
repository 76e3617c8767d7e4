import { and, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { billingRefunds } from '../../src/billing/builtin/tables.js';
import { type BillingAdapter, FaultController, withFaults } from '../../src/billing/index.js';
import { listEvents } from '../../src/events/outbox.js';
import { auditLogs, reconcileIntents } from '../../src/unit-of-work/index.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';

/** Hides the named optional capabilities of an adapter (an adapter that does not offer them). */
const hiding = (hidden: Set<string>) => (adapter: BillingAdapter) =>
  new Proxy(adapter, {
    get: (target, property, receiver) =>
      hidden.has(String(property)) ? undefined : Reflect.get(target, property, receiver),
  });

let t: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let engine: BuiltinBilling;
let billingId: string;
const faults = new FaultController();
const hidden = new Set<string>();

beforeAll(async () => {
  t = await startApp({ wrapBilling: (a) => withFaults(hiding(hidden)(a), faults) });
  tenant = await createTestTenant(t.deps);
  other = await createTestTenant(t.deps);
  for (const who of [tenant, other])
    await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/billing-integration',
      headers: bearer(who.keys.admin),
      payload: { adapter: 'builtin' },
    });
  engine = new BuiltinBilling(t.deps.db, t.deps.clock, tenant.tenantId);
  billingId = (await engine.createAccount({ name: 'Acme', currency: 'USD' })).id;
});
afterAll(() => t.app.close());

const post = (
  url: string,
  payload?: object,
  key = tenant.keys.commerce,
  headers: Record<string, string> = {},
) => api(t, key).post(url, payload, { headers });
const get = (url: string, key = tenant.keys.read) => api(t, key).get(url);

/** A successful session paying a fresh invoice of `cents`. */
const paidSession = async (cents: number) => {
  const invoice = await engine.createInvoice({
    accountId: billingId,
    currency: 'USD',
    lines: [{ description: 'x', quantity: 1, unitAmountCents: cents }],
    idempotencyKey: `inv-${Math.random()}`,
  });
  if (!invoice.ok) throw new Error('invoice');
  const created = await post('/payments', {
    accountId: billingId,
    amountCents: cents,
    currency: 'USD',
    invoiceId: invoice.value.id,
  });
  const id = created.json().data.id as string;
  expect((await post(`/payments/${id}/complete`)).statusCode).toBe(200);
  return { id, invoiceId: invoice.value.id };
};
const refundsOf = async (sessionId: string) =>
  (await get(`/refunds?paymentId=${sessionId}`)).json().data as { amountCents: number; status: string }[];

describe('refunds: amounts and refusals', () => {
  it('refunds the whole remainder by default, records it in the billing system and emits events', async () => {
    const { id, invoiceId } = await paidSession(5000);
    const res = await post(`/payments/${id}/refunds`, { reason: 'requested_by_customer', note: 'broken' });
    expect(res.statusCode).toBe(201);
    const refund = res.json().data;
    expect(refund).toMatchObject({
      paymentSessionId: id,
      accountId: billingId,
      invoiceId,
      amountCents: 5000,
      currency: 'USD',
      reason: 'requested_by_customer',
      note: 'broken',
      status: 'succeeded',
      failureMessage: null,
    });
    expect(res.json().nextActions.map((a: { rel: string }) => a.rel)).toEqual(['self', 'payment']);
    expect((await get(`/refunds/${refund.id}`)).json().data).toEqual(refund);
    const session = (await get(`/payments/${id}`)).json();
    expect(session.data.refundedCents).toBe(5000);
    // Nothing left to refund: the session no longer offers it.
    expect(session.nextActions.map((a: { rel: string }) => a.rel)).not.toContain('refund');
    // The billing system recorded it; the invoice stays paid.
    const invoice = await engine.getInvoice(invoiceId);
    expect(invoice.ok && invoice.value.status).toBe('paid');
    const recorded = await t.deps.db
      .select()
      .from(billingRefunds)
      .where(and(eq(billingRefunds.tenantId, tenant.tenantId), eq(billingRefunds.paymentReference, id)));
    expect(recorded.map((r) => r.amountCents)).toEqual([5000]);
    for (const type of ['refund.created', 'refund.succeeded'] as const) {
      const events = await listEvents(t.deps.db, tenant.tenantId, type);
      expect(events.filter((e) => (e.payload as { id: string }).id === refund.id)).toHaveLength(1);
    }
    const audit = await t.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, tenant.tenantId), eq(auditLogs.resourceId, refund.id)));
    expect(audit.map((a) => a.action)).toEqual(['refund.create']);
  });

  it('takes partial refunds up to what was paid, then refuses with refund_exceeds_remaining', async () => {
    const { id } = await paidSession(3000);
    const session = (await get(`/payments/${id}`)).json();
    expect(session.nextActions.find((a: { rel: string }) => a.rel === 'refund')).toMatchObject({
      operationId: 'createRefund',
      arguments: { id, reason: 'requested_by_customer' },
    });
    expect(
      (await post(`/payments/${id}/refunds`, { amountCents: 1000, reason: 'duplicate' })).statusCode,
    ).toBe(201);
    const over = await post(`/payments/${id}/refunds`, { amountCents: 2001, reason: 'duplicate' });
    expect(over.statusCode).toBe(409);
    expect(errorBody(over).code).toBe('refund_exceeds_remaining');
    expect(errorBody(over).error).toContain('2000 of 3000');
    const rest = await post(`/payments/${id}/refunds`, { reason: 'other' });
    expect(rest.json().data.amountCents).toBe(2000);
    const none = await post(`/payments/${id}/refunds`, { reason: 'other' });
    expect(errorBody(none).code).toBe('refund_exceeds_remaining');
    expect((await refundsOf(id)).map((r) => r.amountCents).sort()).toEqual([1000, 2000]);
    expect((await get(`/payments/${id}`)).json().data.refundedCents).toBe(3000);
  });

  it('refuses sessions that did not succeed, bad input, other tenants and the read scope', async () => {
    const pending = await post('/payments', { accountId: 'acct_1', amountCents: 100, currency: 'USD' });
    const pendingId = pending.json().data.id;
    const notPaid = await post(`/payments/${pendingId}/refunds`, { reason: 'other' });
    expect(notPaid.statusCode).toBe(409);
    expect(errorBody(notPaid).code).toBe('payment_not_refundable');

    const { id } = await paidSession(700);
    const wrongInvoice = await post(`/payments/${id}/refunds`, { reason: 'other', invoiceId: 'in_nope' });
    expect(wrongInvoice.statusCode).toBe(400);
    expect(errorBody(wrongInvoice).details?.[0]).toMatchObject({ field: 'invoiceId', rule: 'matches' });
    const badReason = await post(`/payments/${id}/refunds`, { reason: 'because' });
    expect(badReason.statusCode).toBe(400);
    expect(errorBody(badReason).details?.[0]?.field).toBe('reason');
    const zero = await post(`/payments/${id}/refunds`, { reason: 'other', amountCents: 0 });
    expect(errorBody(zero).details?.[0]).toMatchObject({ field: 'amountCents', rule: 'minimum' });
    const huge = await post(`/payments/${id}/refunds`, { reason: 'other', amountCents: 2 ** 60 });
    expect(huge.statusCode).toBe(400);

    expect((await post(`/payments/${id}/refunds`, { reason: 'other' }, other.keys.commerce)).statusCode).toBe(
      404,
    );
    expect((await post(`/payments/${id}/refunds`, { reason: 'other' }, tenant.keys.read)).statusCode).toBe(
      403,
    );
    expect(await refundsOf(id)).toEqual([]);
    const made = await post(`/payments/${id}/refunds`, { reason: 'other' });
    expect((await get(`/refunds/${made.json().data.id}`, other.keys.read)).statusCode).toBe(404);
    expect((await get(`/refunds?paymentId=${id}`, other.keys.read)).json().data).toEqual([]);
  });

  it('refunds a session without an invoice locally', async () => {
    const created = await post('/payments', { accountId: 'acct_local', amountCents: 900, currency: 'USD' });
    const id = created.json().data.id;
    await post(`/payments/${id}/complete`);
    const res = await post(`/payments/${id}/refunds`, { reason: 'service_issue', amountCents: 400 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ invoiceId: null, status: 'succeeded', amountCents: 400 });
    const listed = await get('/refunds?accountId=acct_local&status=succeeded');
    expect(listed.json().data.map((r: { id: string }) => r.id)).toEqual([res.json().data.id]);
  });

  it('of two parallel refunds of the remainder, one succeeds and one is refused', async () => {
    const { id } = await paidSession(2500);
    const both = await Promise.all([
      post(`/payments/${id}/refunds`, { reason: 'duplicate' }),
      post(`/payments/${id}/refunds`, { reason: 'duplicate' }),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(both.map((r) => r.json().code).filter(Boolean)).toEqual(['refund_exceeds_remaining']);
    expect((await refundsOf(id)).map((r) => r.amountCents)).toEqual([2500]);
  });

  it('property: parallel partial refunds never give back more than was paid', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5000 }),
        fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 6 }),
        async (paid, asks) => {
          const { id } = await paidSession(paid);
          const answers = await Promise.all(
            asks.map((amountCents) => post(`/payments/${id}/refunds`, { reason: 'other', amountCents })),
          );
          for (const a of answers) expect([201, 409]).toContain(a.statusCode);
          const given = (await refundsOf(id)).reduce((s, r) => s + r.amountCents, 0);
          expect(given).toBeLessThanOrEqual(paid);
          expect(given).toBe(
            answers.filter((a) => a.statusCode === 201).reduce((s, a) => s + a.json().data.amountCents, 0),
          );
          expect((await get(`/payments/${id}`)).json().data.refundedCents).toBe(given);
          const recorded = await t.deps.db
            .select()
            .from(billingRefunds)
            .where(
              and(eq(billingRefunds.tenantId, tenant.tenantId), eq(billingRefunds.paymentReference, id)),
            );
          expect(recorded.reduce((s, r) => s + r.amountCents, 0)).toBe(given);
        },
      ),
      { numRuns: 8 },
    );
  });
});

describe('refunds: outages and the reconciler', () => {
  it('a billing outage before the call leaves nothing; one after it is finished by the retry', async () => {
    const { id } = await paidSession(1200);
    faults.failNext = 1;
    const down = await post(`/payments/${id}/refunds`, { reason: 'other' }, undefined, {
      'idempotency-key': 'r-out-1',
    });
    expect(down.statusCode).toBe(502);
    expect(await refundsOf(id)).toEqual([]);
    expect((await get(`/payments/${id}`)).json().data.refundedCents).toBe(0);

    faults.applyThenFailNext = 1;
    const lost = await post(`/payments/${id}/refunds`, { reason: 'other' }, undefined, {
      'idempotency-key': 'r-out-2',
    });
    expect(lost.statusCode).toBe(502);
    // Its outcome is unknown to us: the refund is pending and its amount stays reserved.
    expect(await refundsOf(id)).toMatchObject([{ status: 'pending', amountCents: 1200 }]);
    const another = await post(`/payments/${id}/refunds`, { reason: 'other', amountCents: 1 });
    expect(errorBody(another).code).toBe('refund_exceeds_remaining');
    // Release the lease at once so the retry takes the intent over.
    t.deps.clock = { now: () => new Date(Date.now() + 60_000) };
    try {
      const retried = await post(`/payments/${id}/refunds`, { reason: 'other' }, undefined, {
        'idempotency-key': 'r-out-2',
      });
      expect(retried.statusCode).toBe(201);
      expect(retried.json().data.status).toBe('succeeded');
    } finally {
      t.deps.clock = { now: () => new Date() };
    }
    expect(await refundsOf(id)).toMatchObject([{ status: 'succeeded', amountCents: 1200 }]);
    const recorded = await t.deps.db
      .select()
      .from(billingRefunds)
      .where(and(eq(billingRefunds.tenantId, tenant.tenantId), eq(billingRefunds.paymentReference, id)));
    expect(recorded).toHaveLength(1);
  });

  it('a retry the billing system refuses after an unknown outcome fails visibly: refund.failed, the amount released', async () => {
    const { id, invoiceId } = await paidSession(900);
    faults.loseNext = 1;
    const lost = await post(`/payments/${id}/refunds`, { reason: 'other' }, undefined, {
      'idempotency-key': 'r-fail-1',
    });
    expect(lost.statusCode).toBe(502);
    expect(await refundsOf(id)).toMatchObject([{ status: 'pending', amountCents: 900 }]);
    // Meanwhile the payment was refunded in the billing system itself: the retry is refused there.
    const direct = await engine.refundPayment(invoiceId, {
      paymentReference: id,
      amountCents: 900,
      currency: 'USD',
      reason: 'other',
      idempotencyKey: `direct-${id}`,
    });
    expect(direct.ok).toBe(true);
    t.deps.clock = { now: () => new Date(Date.now() + 60_000) }; // the lease has run out
    let retried: Awaited<ReturnType<typeof post>>;
    try {
      retried = await post(`/payments/${id}/refunds`, { reason: 'other' }, undefined, {
        'idempotency-key': 'r-fail-1',
      });
    } finally {
      t.deps.clock = { now: () => new Date() };
    }
    expect(retried.statusCode, retried.body).toBe(201);
    const refund = retried.json().data;
    expect(refund).toMatchObject({ status: 'failed', amountCents: 900, paymentSessionId: id });
    expect(refund.failureMessage).toContain('exceeds what is left to refund');
    expect(await refundsOf(id)).toMatchObject([{ status: 'failed', amountCents: 900 }]);
    expect((await get(`/payments/${id}`)).json().data.refundedCents).toBe(0);
    const events = await listEvents(t.deps.db, tenant.tenantId, 'refund.failed');
    expect(events.filter((e) => (e.payload as { id: string }).id === refund.id)).toHaveLength(1);
    // The same key answers the same failed refund; nothing more is reserved or sent.
    const again = await post(`/payments/${id}/refunds`, { reason: 'other' }, undefined, {
      'idempotency-key': 'r-fail-1',
    });
    expect(again.json().data).toMatchObject({ id: refund.id, status: 'failed' });
  });

  it('the reconciler finishes a refund left pending', async () => {
    const { id } = await paidSession(800);
    faults.applyThenFailNext = 1;
    expect((await post(`/payments/${id}/refunds`, { reason: 'other' })).statusCode).toBe(502);
    const report = await reconcileIntents(
      { ...t.deps, clock: { now: () => new Date(Date.now() + 60_000) } },
      { tenantId: tenant.tenantId },
    );
    expect(report.completed).toBeGreaterThanOrEqual(1);
    expect(await refundsOf(id)).toMatchObject([{ status: 'succeeded', amountCents: 800 }]);
    expect((await get(`/payments/${id}`)).json().data.refundedCents).toBe(800);
  });

  it('the reconciler drops a refund whose call never reached the billing system; the amount is refundable again', async () => {
    const { id } = await paidSession(700);
    faults.loseNext = 1;
    expect((await post(`/payments/${id}/refunds`, { reason: 'other' })).statusCode).toBe(502);
    expect(await refundsOf(id)).toMatchObject([{ status: 'pending', amountCents: 700 }]);
    const report = await reconcileIntents(
      { ...t.deps, clock: { now: () => new Date(Date.now() + 60_000) } },
      { tenantId: tenant.tenantId },
    );
    expect(report.abandoned).toBeGreaterThanOrEqual(1);
    expect(await refundsOf(id)).toEqual([]);
    expect((await get(`/payments/${id}`)).json().data.refundedCents).toBe(0);
    const recorded = await t.deps.db
      .select()
      .from(billingRefunds)
      .where(and(eq(billingRefunds.tenantId, tenant.tenantId), eq(billingRefunds.paymentReference, id)));
    expect(recorded).toEqual([]);
    const again = await post(`/payments/${id}/refunds`, { reason: 'other' });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().data).toMatchObject({ status: 'succeeded', amountCents: 700 });
  });

  it('answers 501 capability_unavailable when the billing system has no refunds', async () => {
    const { id } = await paidSession(600);
    hidden.add('refundPayment');
    try {
      const res = await post(`/payments/${id}/refunds`, { reason: 'other' });
      expect(res.statusCode).toBe(501);
      expect(errorBody(res)).toMatchObject({ code: 'capability_unavailable' });
      expect(errorBody(res).error).toContain("'refunds'");
      expect(await refundsOf(id)).toEqual([]);
      expect((await get(`/payments/${id}`)).json().data.refundedCents).toBe(0);
    } finally {
      hidden.clear();
    }
  });

  it('pages the list by cursor', async () => {
    const { id } = await paidSession(300);
    for (const amountCents of [100, 100, 100])
      await post(`/payments/${id}/refunds`, { reason: 'other', amountCents });
    const first = (await get(`/refunds?paymentId=${id}&limit=2`)).json();
    expect(first.data).toHaveLength(2);
    const next = (await get(`/refunds?paymentId=${id}&limit=2&cursor=${first.meta.nextCursor}`)).json();
    expect(next.data).toHaveLength(1);
    expect(next.meta.nextCursor).toBeNull();
  });
});
