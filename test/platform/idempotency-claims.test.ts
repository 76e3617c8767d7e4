import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultController, withFaults } from '../../src/billing/index.js';
import { claimScope, requestHash } from '../../src/http/idempotency/store.js';
import { idempotencyKeys } from '../../src/http/idempotency/tables.js';
import { intents } from '../../src/unit-of-work/index.js';
import { bearer, errorBody, startApp, type TestApp } from '../harness.js';
import { noCreditOnIssue } from '../support/billing-fixtures.js';
import { MoneyWorld } from '../support/money-world.js';
import { waitFor } from '../support/wait.js';

// Issue 27, finding 1: a request answered 4xx took effect. The Idempotency-Key's scope was only
// checked in the final commit, after the intent and the billing call, so three requests sent at
// once with one key and three bodies were answered 201, 422, 422 while all three moved money (the
// reconciler finished the refused ones). The key and its request hash are now claimed before any
// effect. Each operation that has an intent is raced here: exactly one body takes effect, the
// others are 422 idempotency_conflict and leave nothing (no intent, no billing call), before and
// after the reconciler's pass.

let t: TestApp;
let w: MoneyWorld;
const faults = new FaultController();

beforeAll(async () => {
  t = await startApp({ wrapBilling: (a) => withFaults(a, faults) });
  w = new MoneyWorld(t, faults);
  await w.setUp();
  // Credit left over by one race (whichever amount won) must not pay part of the invoices later
  // tests issue: each test here names exact amounts. Credit on issue has its own tests.
  await noCreditOnIssue(t, w.tenant);
});
afterAll(() => t.app.close());

const inject = (method: string, url: string, body: object | undefined, key: string, apiKey?: string) =>
  t.app.inject({
    method: method as 'POST',
    url: `/api/v1${url}`,
    headers: { ...bearer(apiKey ?? w.tenant.keys.commerce), 'idempotency-key': key },
    ...(body ? { payload: body } : {}),
  });

/**
 * Sends the bodies at once under one key, billing calls slowed so the first is still in flight
 * while the others arrive; then the reconciler settles everything left pending.
 */
async function race(
  method: string,
  url: string,
  bodies: object[],
  apiKey?: string,
  track?: (created: { id: string }) => void,
) {
  const key = `race-${Math.random().toString(36).slice(2)}`;
  faults.latencyMs = 20;
  const answers = await Promise.all(bodies.map((b) => inject(method, url, b, key, apiKey))).finally(() =>
    faults.reset(),
  );
  await w.settle();
  const statuses = answers.map((a) => `${a.statusCode} ${a.statusCode >= 300 ? errorBody(a).code : ''}`);
  const won = answers.filter((a) => a.statusCode < 300);
  const refused = answers.filter((a) => a.statusCode === 422);
  expect(won, `statuses ${statuses}`).toHaveLength(1);
  expect(refused, `statuses ${statuses}`).toHaveLength(bodies.length - 1);
  for (const r of refused) expect(errorBody(r).code).toBe('idempotency_conflict');
  track?.((won[0] as (typeof answers)[number]).json().data);
  // The refused requests began nothing: no intent carries their request id.
  const refusedIds = refused.map((r) => errorBody(r).requestId as string);
  const begun = await t.deps.db.select().from(intents).where(eq(intents.tenantId, w.tenant.tenantId));
  expect(begun.filter((i) => refusedIds.includes(i.requestId))).toEqual([]);
  expect(await w.problems()).toEqual([]);
  const winner = bodies[answers.indexOf(won[0] as (typeof answers)[number])] as Record<string, unknown>;
  return { winner, answer: (won[0] as (typeof answers)[number]).json().data };
}

/** A fresh open invoice of `cents` on the billing account, known to the world. */
async function openInvoice(cents: number) {
  const id = (
    await w.send(
      'POST',
      `/admin/billing/accounts/${w.billingId}/invoices`,
      { lines: [{ description: 'x', unitAmountCents: cents }] },
      undefined,
      w.tenant.keys.admin,
    )
  ).json().data.id as string;
  w.invoices.push(id);
  return id;
}

/** A fresh invoice of `cents`, paid by a successful session. */
async function paidSession(cents: number) {
  const invoiceId = await openInvoice(cents);
  const body = { accountId: w.billingId, amountCents: cents, currency: 'USD' };
  const session = (await w.send('POST', `/invoices/${invoiceId}/pay`, body)).json().data;
  expect((await w.send('POST', `/payments/${session.id}/complete`)).status).toBe(200);
  return { sessionId: session.id as string, invoiceId };
}

describe('an Idempotency-Key is claimed with its body: one effect per key', () => {
  it('refunds: three amounts under one key refund only the one answered 201', async () => {
    const { sessionId } = await paidSession(10_000);
    const bodies = [1000, 2000, 3000].map((amountCents) => ({
      amountCents,
      reason: 'requested_by_customer',
    }));
    const { winner } = await race('POST', `/payments/${sessionId}/refunds`, bodies);
    const session = (await w.send('GET', `/payments/${sessionId}`)).json().data;
    expect(session.refundedCents).toBe(winner.amountCents);
    const listed = (await w.send('GET', `/refunds?paymentId=${sessionId}`)).json().data;
    expect(listed.map((r: { amountCents: number; status: string }) => [r.amountCents, r.status])).toEqual([
      [winner.amountCents, 'succeeded'],
    ]);
  });

  it('credit applications: three amounts under one key apply credit once', async () => {
    // Issued before the grant, so credit on issue does not take it first.
    const invoiceId = await openInvoice(9000);
    await w.send(
      'POST',
      `/accounts/${w.orgId}/credits`,
      { amountCents: 5000, currency: 'USD', reason: 'race' },
      undefined,
      w.tenant.keys.admin,
    );
    const { winner } = await race(
      'POST',
      `/invoices/${invoiceId}/apply-credit`,
      [100, 200, 300].map((amountCents) => ({ amountCents })),
    );
    const state = await w.state();
    const applied = state.credits.filter((e) => e.kind === 'application' && e.invoiceId === invoiceId);
    expect(applied.map((e) => -Number(e.amountCents))).toEqual([winner.amountCents]);
  });

  it('operator invoices: three bodies under one key issue one invoice', async () => {
    const before = (await w.state()).invoices.length;
    await race(
      'POST',
      `/admin/billing/accounts/${w.billingId}/invoices`,
      [111, 222, 333].map((unitAmountCents) => ({ lines: [{ description: 'x', unitAmountCents }] })),
      w.tenant.keys.admin,
      (created) => w.invoices.push(created.id),
    );
    expect((await w.state()).invoices.length - before).toBe(1);
  });

  it('invoice payments and payment sessions: one session per key', async () => {
    // More than any credit left to apply on issue: the invoice stays open.
    const invoiceId = await openInvoice(40_000);
    const before = (await w.state()).sessions.length;
    await race(
      'POST',
      `/invoices/${invoiceId}/pay`,
      [1000, 2000, 3000].map((amountCents) => ({ accountId: w.billingId, amountCents, currency: 'USD' })),
    );
    await race(
      'POST',
      '/payments',
      [1000, 2000, 3000].map((amountCents) => ({
        accountId: w.billingId,
        amountCents,
        currency: 'USD',
        invoiceId,
      })),
    );
    expect((await w.state()).sessions.length - before).toBe(2);
  });

  it('subscriptions: create, change, cancel and renew each take effect once', async () => {
    const plan = w.plans[0] as { id: string };
    const before = (await w.state()).localSubs.length;
    const { answer } = await race(
      'POST',
      '/subscriptions',
      [1, 2, 3].map((quantity) => ({ productId: plan.id, quantity, organizationId: w.orgId })),
    );
    expect((await w.state()).localSubs.length - before).toBe(1);
    const id = answer.id as string;

    const { winner } = await race(
      'POST',
      `/subscriptions/${id}/change-quantity`,
      [4, 5, 6].map((quantity) => ({ quantity, timing: 'immediate' })),
    );
    expect((await w.send('GET', `/subscriptions/${id}`)).json().data.quantity).toBe(winner.quantity);

    const renewed = await race('POST', `/subscriptions/${id}/renew`, [{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(renewed.answer.renewal).toBe('early');

    const creditsBefore = (await w.state()).credits.length;
    const refundsBefore = (await w.state()).refunds.length;
    const cancelled = await race(
      'POST',
      `/subscriptions/${id}/cancel`,
      (['none', 'credit', 'refund'] as const).map((refund) => ({ timing: 'immediate', refund })),
    );
    const after = await w.state();
    const gaveBack = { none: [0, 0], credit: [1, 0], refund: [0, 1] }[cancelled.winner.refund as string];
    // What was given back is the winner's choice alone, whatever it was (nothing, credit, a refund).
    expect([
      after.credits.length - creditsBefore > 0 ? 1 : 0,
      after.refunds.length - refundsBefore > 0 ? 1 : 0,
    ]).toEqual(gaveBack);
  });

  it('orders: three bodies under one key create one order', async () => {
    const before = (await w.state()).orders.length;
    await race(
      'POST',
      '/orders',
      [1, 2, 3].map((quantity) => ({ organizationId: w.orgId, items: [{ productId: w.itemId, quantity }] })),
    );
    expect((await w.state()).orders.length - before).toBe(1);
  });
});

describe('an Idempotency-Key is claimed with its body: in flight, refused and crashed claims', () => {
  it('the same body sent at once: one runs, the others are 409 in flight or its replay', async () => {
    const { sessionId } = await paidSession(5000);
    const key = `same-${Math.random()}`;
    const body = { amountCents: 700, reason: 'requested_by_customer' };
    faults.latencyMs = 20;
    const answers = await Promise.all(
      [0, 1, 2].map(() => inject('POST', `/payments/${sessionId}/refunds`, body, key)),
    ).finally(() => faults.reset());
    const created = answers.filter((a) => a.statusCode === 201 && !a.headers['x-idempotency-replayed']);
    expect(created).toHaveLength(1);
    for (const a of answers.filter((x) => x !== created[0])) {
      if (a.statusCode === 409) expect(errorBody(a).code).toBe('idempotency_in_flight');
      else expect([a.statusCode, a.headers['x-idempotency-replayed']]).toEqual([201, 'true']);
    }
    expect((await w.send('GET', `/payments/${sessionId}`)).json().data.refundedCents).toBe(700);
  });

  it('a request refused for its body (400) frees the key; a corrected body under it then runs', async () => {
    const { sessionId } = await paidSession(3000);
    const key = `fix-${Math.random()}`;
    const tooMuch = await inject(
      'POST',
      `/payments/${sessionId}/refunds`,
      { amountCents: 3001, reason: 'requested_by_customer' },
      key,
    );
    expect(tooMuch.statusCode).toBeGreaterThanOrEqual(400);
    expect(tooMuch.statusCode).toBeLessThan(500);
    const scope = and(
      eq(idempotencyKeys.tenantId, w.tenant.tenantId),
      eq(idempotencyKeys.idempotencyKey, key),
    );
    const rows = await t.deps.db.select().from(idempotencyKeys).where(scope);
    if (tooMuch.statusCode === 400) {
      expect(rows).toEqual([]);
      const fixed = await inject(
        'POST',
        `/payments/${sessionId}/refunds`,
        { amountCents: 3000, reason: 'requested_by_customer' },
        key,
      );
      expect(fixed.statusCode, fixed.body).toBe(201);
    } else {
      // Remembered refusals keep the key, answered with the same bytes.
      expect(rows.map((r) => r.responseStatus)).toEqual([tooMuch.statusCode]);
    }
  });

  it('a claim left by a crashed request: another body is 422; the same body takes it over once its lease ends', async () => {
    const invoiceId = await openInvoice(2500);
    const key = `crash-${Math.random()}`;
    const body = { accountId: w.billingId, amountCents: 2500, currency: 'USD' };
    const url = `/invoices/${invoiceId}/pay`;
    // What a process killed right after claiming leaves: the claim, no answer, a live lease.
    const now = t.deps.clock.now();
    const scope = {
      tenantId: w.tenant.tenantId,
      key,
      method: 'POST',
      path: `/api/v1${url}`,
      hash: requestHash(body, {}),
    };
    expect((await claimScope(t.deps.db, t.deps.keyRing, scope, now, 60_000)).kind).toBe('claimed');
    const held = await inject('POST', url, body, key);
    expect([held.statusCode, errorBody(held).code]).toEqual([409, 'idempotency_in_flight']);
    const other = await inject('POST', url, { ...body, amountCents: 100 }, key);
    expect([other.statusCode, errorBody(other).code]).toEqual([422, 'idempotency_conflict']);
    expect((await w.state()).sessions.filter((s) => s.invoiceId === invoiceId)).toEqual([]);
    // The lease runs out: the same request takes the claim over and runs; another body still may not.
    const where = and(
      eq(idempotencyKeys.tenantId, w.tenant.tenantId),
      eq(idempotencyKeys.idempotencyKey, key),
    );
    await t.deps.db.update(idempotencyKeys).set({ claimedUntil: now }).where(where);
    expect((await inject('POST', url, { ...body, amountCents: 100 }, key)).statusCode).toBe(422);
    const resumed = await inject('POST', url, body, key);
    expect(resumed.statusCode).toBe(201);
    const replayed = await inject('POST', url, body, key);
    expect([replayed.statusCode, replayed.headers['x-idempotency-replayed']]).toEqual([201, 'true']);
    expect(replayed.json().data.id).toBe(resumed.json().data.id);
  });

  it('a request whose lease ran out while it ran stores nothing: the retry that took the claim over answers, and it replays that answer', async () => {
    const invoiceId = await openInvoice(3100);
    const key = `lost-${Math.random()}`;
    const body = { accountId: w.billingId, amountCents: 3100, currency: 'USD' };
    const url = `/invoices/${invoiceId}/pay`;
    let open = () => {};
    faults.gate = new Promise((resolve) => {
      open = resolve;
    });
    const first = inject('POST', url, body, key);
    // The first request has claimed the key and waits in its billing call...
    await waitFor(() => faults.calls.length > 0, 'the first request to reach the billing system');
    faults.gate = null;
    // ...until its lease has run out and a retry of it takes the claim over and completes.
    await t.deps.db
      .update(idempotencyKeys)
      .set({ claimedUntil: t.deps.clock.now() })
      .where(and(eq(idempotencyKeys.tenantId, w.tenant.tenantId), eq(idempotencyKeys.idempotencyKey, key)));
    const retry = await inject('POST', url, body, key);
    expect(retry.statusCode).toBe(201);
    open();
    const late = await first;
    expect([late.statusCode, late.headers['x-idempotency-replayed']]).toEqual([201, 'true']);
    expect(late.body).toBe(retry.body);
    expect((await w.state()).sessions.filter((s) => s.invoiceId === invoiceId)).toHaveLength(1);
    expect(await w.problems()).toEqual([]);
  });
});
