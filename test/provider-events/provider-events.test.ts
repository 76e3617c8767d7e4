import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { billingPayments } from '../../src/billing/builtin/tables.js';
import { FaultController, withFaults } from '../../src/billing/index.js';
import { ManualClock } from '../../src/clock.js';
import { listEvents } from '../../src/events/outbox.js';
import { getSession, insertSession } from '../../src/modules/payments/service.js';
import { signatureHeader } from '../../src/modules/provider-events/index.js';
import { providerEvents } from '../../src/modules/provider-events/tables.js';
import { auditLogs, reconcileIntents } from '../../src/unit-of-work/index.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { waitFor } from '../support/wait.js';

interface Integration {
  provider: string;
  endpointId: string;
  secret: string;
  callbackUrl: string;
}

let t: TestApp;
let tenant: TestTenant;
let provider: Integration;
const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
const faults = new FaultController();

beforeAll(async () => {
  t = await startApp({ clock, wrapBilling: (a) => withFaults(a, faults) });
  tenant = await createTestTenant(t.deps);
  provider = await configure(tenant);
});
afterAll(() => t.app.close());
// Callbacks are limited per client IP (all of these come from one): keep the window fresh.
beforeEach(() => {
  clock.advance(61_000);
  faults.reset();
});

const admin = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object, who = tenant) =>
  api(t, who.keys.admin).send(method, `/admin${url}`, payload);

async function configure(who: TestTenant): Promise<Integration> {
  const response = await admin('PUT', '/payment-provider', { provider: 'sandbox' }, who);
  expect(response.statusCode).toBe(200);
  return response.json().data;
}

const now = () => Math.floor(clock.now().getTime() / 1000);

/** POSTs `body` to the callback as the provider would; `sign` overrides the signature. */
function deliver(
  body: object | string,
  options: { to?: Integration; secret?: string; timestamp?: number; signature?: string | null } = {},
) {
  const to = options.to ?? provider;
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const signature =
    options.signature === undefined
      ? signatureHeader(options.secret ?? to.secret, options.timestamp ?? now(), raw)
      : options.signature;
  return t.app.inject({
    method: 'POST',
    url: `/api/v1/provider-events/${to.provider}/${to.endpointId}`,
    headers: {
      'content-type': 'application/json',
      ...(signature === null ? {} : { 'provider-signature': signature }),
    },
    payload: raw,
  });
}

/**
 * Sends `send()` again while it answers 409 (another operation holds the session, or the same
 * event is being applied), as a provider retries every non-2xx answer.
 */
async function retried(send: () => ReturnType<typeof deliver>) {
  let res: Awaited<ReturnType<typeof deliver>> | undefined;
  await waitFor(async () => {
    res = await send();
    return res.statusCode !== 409;
  }, 'the event to be answered other than 409');
  return res as Awaited<ReturnType<typeof deliver>>;
}

const event = (
  sessionId: string,
  type: 'payment.succeeded' | 'payment.failed' = 'payment.succeeded',
  extra: Record<string, unknown> = {},
) => ({ id: `evt_${randomUUID()}`, type, data: { paymentSessionId: sessionId, ...extra } });

async function newSession(
  who: TestTenant = tenant,
  input: { amountCents?: number; invoiceId?: string | null; currency?: string } = {},
) {
  const row = await t.deps.db.transaction((tx) =>
    insertSession(
      tx,
      who.tenantId,
      {
        accountId: 'acct_1',
        amountCents: input.amountCents ?? 2500,
        currency: input.currency ?? 'USD',
        invoiceId: input.invoiceId ?? null,
        paymentPageSlug: null,
      },
      clock.now(),
    ),
  );
  return row.id as string;
}

const status = async (id: string, who = tenant) => (await getSession(t.deps.db, who.tenantId, id))?.status;

const eventsFor = async (type: Parameters<typeof listEvents>[2], id: string, who = tenant) =>
  (await listEvents(t.deps.db, who.tenantId, type)).filter((e) => {
    const p = e.payload as { id?: string; paymentSessionId?: string };
    return p.id === id || p.paymentSessionId === id;
  });

/** A tenant running the built-in billing engine, with an open invoice of `cents`. */
async function invoiceTenant(cents = 4000) {
  const who = await createTestTenant(t.deps);
  expect((await admin('PUT', '/billing-integration', { adapter: 'builtin' }, who)).statusCode).toBe(200);
  const engine = new BuiltinBilling(t.deps.db, t.deps.clock, who.tenantId);
  const account = await engine.createAccount({ name: 'Acme', currency: 'USD', contacts: [] });
  const created = await engine.createInvoice({
    accountId: account.id,
    currency: 'USD',
    lines: [{ description: 'Plan', quantity: 1, unitAmountCents: cents }],
    idempotencyKey: `inv-${account.id}`,
  });
  if (!created.ok) throw new Error('invoice');
  const integration = await configure(who);
  const sessionId = await newSession(who, { amountCents: cents, invoiceId: created.value.id });
  const invoice = async () => {
    const r = await engine.getInvoice(created.value.id);
    if (!r.ok) throw new Error('invoice');
    return r.value;
  };
  const settlements = async () =>
    t.deps.db
      .select()
      .from(billingPayments)
      .where(
        and(eq(billingPayments.tenantId, who.tenantId), eq(billingPayments.invoiceId, created.value.id)),
      );
  return { who, integration, engine, sessionId, invoiceId: created.value.id, invoice, settlements };
}

describe('provider events: integration admin', () => {
  it('issues an unguessable endpoint and a secret shown once, and rotates both', async () => {
    const who = await createTestTenant(t.deps);
    expect((await admin('GET', '/payment-provider', undefined, who)).statusCode).toBe(404);
    const first = await configure(who);
    expect(first.provider).toBe('sandbox');
    expect(first.endpointId).toMatch(/^pe_[0-9a-f]{32}$/);
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(first.callbackUrl).toBe(
      `${t.deps.config.publicBaseUrl}/api/v1/provider-events/sandbox/${first.endpointId}`,
    );
    const read = await admin('GET', '/payment-provider', undefined, who);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toMatchObject({ provider: 'sandbox', endpointId: first.endpointId });
    expect(read.json().data).not.toHaveProperty('secret');
    expect(read.body).not.toContain(first.secret);

    const second = await configure(who);
    expect(second.endpointId).not.toBe(first.endpointId);
    expect(second.secret).not.toBe(first.secret);
    const sessionId = await newSession(who);
    expect((await deliver(event(sessionId), { to: first })).statusCode).toBe(404);
    expect((await deliver(event(sessionId), { to: second })).statusCode).toBe(200);

    const audit = await t.deps.db.select().from(auditLogs).where(eq(auditLogs.tenantId, who.tenantId));
    const updates = audit.filter((a) => a.action === 'provider_integration.update');
    expect(updates).toHaveLength(2);
    expect(JSON.stringify(updates)).not.toContain(first.secret);
  });

  it('needs the admin scope and a known provider', async () => {
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/payment-provider',
      headers: bearer(tenant.keys.commerce),
      payload: { provider: 'sandbox' },
    });
    expect(put.statusCode).toBe(403);
    const unknown = await admin('PUT', '/payment-provider', { provider: 'stripe' });
    expect(unknown.statusCode).toBe(400);
    expect(errorBody(unknown).details?.[0]).toMatchObject({ field: 'provider' });
  });

  it('keeps the callback out of the public OpenAPI document, the admin operations in', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const paths = Object.keys(doc.paths);
    expect(paths.some((p) => p.includes('provider-events'))).toBe(false);
    expect(doc.paths['/api/v1/admin/payment-provider'].put.operationId).toBe('putPaymentProvider');
    expect(doc.paths['/api/v1/admin/payment-provider/simulate'].post.operationId).toBe(
      'simulateProviderEvent',
    );
    expect(t.app.registry.internalRoutes).toContainEqual({
      method: 'POST',
      url: '/api/v1/provider-events/:provider/:endpointId',
    });
  });
});

describe('provider events: the callback applies events', () => {
  it('moves a pending session to success with exactly one payment.succeeded', async () => {
    const sessionId = await newSession();
    const e = event(sessionId, 'payment.succeeded', { amountCents: 2500 });
    const response = await deliver(e);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      received: true,
      applied: true,
      duplicate: false,
      paymentSessionId: sessionId,
      status: 'success',
    });
    const row = await getSession(t.deps.db, tenant.tenantId, sessionId);
    expect(row).toMatchObject({ status: 'success', resolvedBy: `provider:${e.id}` });
    expect(await eventsFor('payment.succeeded', sessionId)).toHaveLength(1);
    expect(await eventsFor('payment.failed', sessionId)).toHaveLength(0);
    const audit = await t.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, tenant.tenantId), eq(auditLogs.resourceId, sessionId)));
    expect(audit).toMatchObject([
      { action: 'payment.provider_event', actorKeyId: null, details: { eventId: e.id, applied: true } },
    ]);
  });

  it('settles the linked invoice on success and emits invoice.paid', async () => {
    const f = await invoiceTenant(4000);
    const response = await deliver(event(f.sessionId, 'payment.succeeded', { amountCents: 4000 }), {
      to: f.integration,
    });
    expect(response.json()).toMatchObject({ applied: true, status: 'success' });
    expect(await f.invoice()).toMatchObject({ status: 'paid', balanceCents: 0 });
    expect(await f.settlements()).toHaveLength(1);
    expect(await eventsFor('payment.succeeded', f.sessionId, f.who)).toHaveLength(1);
    expect(await eventsFor('invoice.paid', f.sessionId, f.who)).toHaveLength(1);
  });

  it('a partial payment lowers the invoice balance without invoice.paid', async () => {
    const f = await invoiceTenant(4000);
    const partial = await newSession(f.who, { amountCents: 1500, invoiceId: f.invoiceId });
    expect((await deliver(event(partial), { to: f.integration })).json().applied).toBe(true);
    expect(await f.invoice()).toMatchObject({ status: 'open', balanceCents: 2500 });
    expect(await eventsFor('invoice.paid', partial, f.who)).toHaveLength(0);
  });

  it('moves a session to failed with payment.failed (and invoice.failed for an invoice)', async () => {
    const plain = await newSession();
    const response = await deliver(event(plain, 'payment.failed', { failureReason: 'card_declined' }));
    expect(response.json()).toMatchObject({ applied: true, status: 'failed' });
    expect(await status(plain)).toBe('failed');
    expect(await eventsFor('payment.failed', plain)).toHaveLength(1);
    expect(await eventsFor('invoice.failed', plain)).toHaveLength(0);

    const f = await invoiceTenant(3000);
    expect((await deliver(event(f.sessionId, 'payment.failed'), { to: f.integration })).statusCode).toBe(200);
    expect(await status(f.sessionId, f.who)).toBe('failed');
    expect(await eventsFor('payment.failed', f.sessionId, f.who)).toHaveLength(1);
    expect(await eventsFor('invoice.failed', f.sessionId, f.who)).toHaveLength(1);
    expect(await f.invoice()).toMatchObject({ status: 'open', balanceCents: 3000 });
    expect(await f.settlements()).toHaveLength(0);
  });
});

describe('provider events: the callback checks signatures, endpoints, redeliveries and payloads', () => {
  it('refuses a missing, malformed or wrong signature with 401 and changes nothing', async () => {
    const sessionId = await newSession();
    const e = event(sessionId);
    const other = await configure(await createTestTenant(t.deps));
    const raw = JSON.stringify(e);
    for (const attempt of [
      deliver(e, { signature: null }),
      deliver(e, { signature: 'nonsense' }),
      deliver(e, { signature: `t=${now()}` }),
      deliver(e, { signature: `t=${now()},v1=abc` }),
      deliver(e, { signature: `v1=${'0'.repeat(64)}` }),
      deliver(e, { signature: `t=${now()},v1=${'0'.repeat(64)}` }),
      deliver(e, { secret: other.secret }),
      // Signed over other bytes than those sent.
      deliver(`${raw} `, { signature: signatureHeader(provider.secret, now(), raw) }),
    ]) {
      const response = await attempt;
      expect(response.statusCode).toBe(401);
      expect(errorBody(response).code).toBe('unauthorized');
    }
    expect(await status(sessionId)).toBe('pending');
    expect(await eventsFor('payment.succeeded', sessionId)).toHaveLength(0);
    const recorded = await t.deps.db
      .select()
      .from(providerEvents)
      .where(and(eq(providerEvents.tenantId, tenant.tenantId), eq(providerEvents.eventId, e.id)));
    expect(recorded).toHaveLength(0);
    // The same event, correctly signed, still applies.
    expect((await deliver(e)).json().applied).toBe(true);
  });

  it('verifies over the raw bytes: whitespace and key order as sent', async () => {
    const sessionId = await newSession();
    const raw = `{ "type": "payment.succeeded",\n  "data": { "paymentSessionId": "${sessionId}" }, "id": "evt_raw_${sessionId}" }`;
    const response = await deliver(raw);
    expect(response.statusCode).toBe(200);
    expect(await status(sessionId)).toBe('success');
  });

  it('refuses a timestamp more than 5 minutes old or ahead', async () => {
    const sessionId = await newSession();
    const e = event(sessionId);
    const signedAt = now();
    clock.advance(6 * 60_000);
    const late = await deliver(e, { timestamp: signedAt });
    expect(late.statusCode).toBe(401);
    expect(errorBody(late).error).toMatch(/tolerance/);
    expect((await deliver(e, { timestamp: now() + 6 * 60 })).statusCode).toBe(401);
    expect(await status(sessionId)).toBe('pending');
    expect((await deliver(e, { timestamp: now() - 4 * 60 })).statusCode).toBe(200);
    expect(await status(sessionId)).toBe('success');
  });

  it('answers 404 for an unknown endpoint or provider', async () => {
    const e = event(await newSession());
    const unknown = await deliver(e, { to: { ...provider, endpointId: `pe_${'0'.repeat(32)}` } });
    expect(unknown.statusCode).toBe(404);
    expect(errorBody(unknown).code).toBe('not_found');
    expect((await deliver(e, { to: { ...provider, provider: 'stripe' } })).statusCode).toBe(404);
  });

  it('applies an event id once: a redelivery changes nothing', async () => {
    const sessionId = await newSession();
    const e = event(sessionId);
    expect((await deliver(e)).json()).toMatchObject({ applied: true, duplicate: false });
    const again = await deliver(e);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ received: true, applied: false, duplicate: true });
    // Even a redelivery with a different body: the id is what counts.
    const altered = await deliver({ ...e, type: 'payment.failed' });
    expect(altered.json()).toMatchObject({ duplicate: true });
    expect(await status(sessionId)).toBe('success');
    expect(await eventsFor('payment.succeeded', sessionId)).toHaveLength(1);
    expect(await eventsFor('payment.failed', sessionId)).toHaveLength(0);
  });

  it('records but does not apply an event for a terminal session', async () => {
    const sessionId = await newSession();
    await deliver(event(sessionId, 'payment.failed'));
    const late = await deliver(event(sessionId, 'payment.succeeded'));
    expect(late.statusCode).toBe(200);
    expect(late.json()).toMatchObject({
      applied: false,
      duplicate: false,
      reason: 'terminal',
      status: 'failed',
    });
    expect(await status(sessionId)).toBe('failed');
    expect(await eventsFor('payment.succeeded', sessionId)).toHaveLength(0);
  });

  it('acknowledges an unknown (or another tenant’s) session without changing anything', async () => {
    const missing = await deliver(event(randomUUID()));
    expect(missing.statusCode).toBe(200);
    expect(missing.json()).toMatchObject({ applied: false, reason: 'unknown_session' });
    const other = await createTestTenant(t.deps);
    const foreign = await newSession(other);
    expect((await deliver(event(foreign))).json()).toMatchObject({ reason: 'unknown_session' });
    expect(await status(foreign, other)).toBe('pending');
  });

  it('does not apply a success whose amount differs from the session', async () => {
    const sessionId = await newSession(tenant, { amountCents: 2500 });
    const response = await deliver(event(sessionId, 'payment.succeeded', { amountCents: 2499 }));
    expect(response.json()).toMatchObject({ applied: false, reason: 'amount_mismatch', status: 'pending' });
    expect(await status(sessionId)).toBe('pending');
  });

  it('validates the payload after the signature: 400 naming the field', async () => {
    const sessionId = await newSession();
    const notJson = await deliver('{"id": ');
    expect(notJson.statusCode).toBe(400);
    expect(errorBody(notJson).details?.[0]).toMatchObject({ field: 'body', rule: 'json' });
    const cases: [object, string][] = [
      [{ id: 'evt_1', type: 'payment.refunded', data: { paymentSessionId: sessionId } }, 'type'],
      [{ id: 'evt_1', type: 'payment.succeeded', data: {} }, 'data.paymentSessionId'],
      [
        { id: 'evt_1', type: 'payment.succeeded', data: { paymentSessionId: 'nope' } },
        'data.paymentSessionId',
      ],
      [{ id: '', type: 'payment.succeeded', data: { paymentSessionId: sessionId } }, 'id'],
      [
        { id: 'evt_1', type: 'payment.succeeded', data: { paymentSessionId: sessionId, amountCents: 1.5 } },
        'data.amountCents',
      ],
    ];
    for (const [body, field] of cases) {
      const response = await deliver(body);
      expect(response.statusCode, field).toBe(400);
      expect(errorBody(response).code).toBe('validation_failed');
      expect(
        errorBody(response).details?.map((d) => d.field),
        field,
      ).toContain(field);
    }
    const plain = await t.app.inject({
      method: 'POST',
      url: `/api/v1/provider-events/sandbox/${provider.endpointId}`,
      headers: {
        'content-type': 'text/plain',
        'provider-signature': signatureHeader(provider.secret, now(), 'x'),
      },
      payload: 'x',
    });
    expect(plain.statusCode).toBe(415);
    // An invalid payload with a bad signature is still 401: nothing is parsed before verification.
    expect((await deliver('{"id": ', { signature: `t=${now()},v1=${'0'.repeat(64)}` })).statusCode).toBe(401);
    expect(await status(sessionId)).toBe('pending');
  });
});

describe('provider events: the callback under billing outages', () => {
  it('answers 502 on a billing outage without recording the event, so the retry applies it', async () => {
    const f = await invoiceTenant(1000);
    const e = event(f.sessionId);
    faults.failAll = true;
    const down = await deliver(e, { to: f.integration });
    expect(down.statusCode).toBe(502);
    expect(errorBody(down).code).toBe('billing_unavailable');
    expect(await status(f.sessionId, f.who)).toBe('pending');
    faults.failAll = false;
    const retried = await deliver(e, { to: f.integration });
    expect(retried.json()).toMatchObject({ applied: true, duplicate: false });
    expect(await f.settlements()).toHaveLength(1);
  });

  it('records a success the billing system refuses, leaving the session for reconciliation', async () => {
    const f = await invoiceTenant(1000);
    const closed = await f.engine.closeInvoice(f.invoiceId, 'void');
    expect(closed.ok).toBe(true);
    const response = await deliver(event(f.sessionId), { to: f.integration });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      applied: false,
      reason: 'settlement_refused',
      status: 'pending',
    });
    expect(await status(f.sessionId, f.who)).toBe('pending');
    expect(await eventsFor('payment.succeeded', f.sessionId, f.who)).toHaveLength(0);
    const audit = await t.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, f.who.tenantId), eq(auditLogs.resourceId, f.sessionId)));
    expect(audit[0]?.details).toMatchObject({
      reason: 'settlement_refused',
      detail: expect.stringMatching(/void/),
    });
  });
});

describe('provider events: a failure after the settlement', () => {
  /** An invoice tenant whose session succeeded through the callback (the invoice is paid). */
  async function settled(cents: number) {
    const f = await invoiceTenant(cents);
    const ok = await deliver(event(f.sessionId), { to: f.integration });
    expect(ok.json()).toMatchObject({ applied: true, status: 'success' });
    const refund = (amountCents: number) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/payments/${f.sessionId}/refunds`,
        headers: bearer(f.who.keys.commerce),
        payload: { amountCents, reason: 'requested_by_customer' },
      });
    return { ...f, refund };
  }
  const audited = async (f: { who: TestTenant; sessionId: string }) =>
    (
      await t.deps.db
        .select()
        .from(auditLogs)
        .where(and(eq(auditLogs.tenantId, f.who.tenantId), eq(auditLogs.resourceId, f.sessionId)))
    ).filter((a) => a.action === 'payment.provider_event');

  it('reverses it as a dispute: the session stays success with its reversal, the invoice open again', async () => {
    const f = await settled(2000);
    const failure = event(f.sessionId, 'payment.failed', { failureReason: 'chargeback' });
    const response = await deliver(failure, { to: f.integration });
    expect(response.json()).toMatchObject({ applied: true, status: 'success', reversed: true });
    const read = await t.app.inject({
      method: 'GET',
      url: `/api/v1/payments/${f.sessionId}`,
      headers: bearer(f.who.keys.read),
    });
    expect(read.json().data).toMatchObject({
      status: 'success',
      reversal: {
        reason: 'chargeback',
        createdAt: clock.now().toISOString(),
        providerReference: `provider:${failure.id}`,
      },
    });
    // A reversed payment offers no refund: its money was taken back.
    expect(read.json().nextActions.map((a: { rel: string }) => a.rel)).not.toContain('refund');
    expect(await f.invoice()).toMatchObject({ status: 'open', balanceCents: 2000 });
    expect(await eventsFor('payment.reversed', f.sessionId, f.who)).toHaveLength(1);
    expect(await eventsFor('invoice.reopened', f.sessionId, f.who)).toHaveLength(1);
    expect(await eventsFor('payment.failed', f.sessionId, f.who)).toHaveLength(0);
    // A second failure changes nothing: the reversal is recorded once.
    const again = await deliver(event(f.sessionId, 'payment.failed'), { to: f.integration });
    expect(again.json()).toMatchObject({ applied: false, reason: 'terminal', status: 'success' });
    expect(await eventsFor('payment.reversed', f.sessionId, f.who)).toHaveLength(1);
    expect(await f.invoice()).toMatchObject({ status: 'open', balanceCents: 2000 });
  });

  it('does not reverse a refunded settlement: recorded as refunded, money left as it stands', async () => {
    const f = await settled(2000);
    const refunded = await f.refund(500);
    expect(refunded.statusCode, refunded.body).toBe(201);
    const response = await deliver(event(f.sessionId, 'payment.failed'), { to: f.integration });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      received: true,
      applied: false,
      duplicate: false,
      reason: 'refunded',
      status: 'success',
      paymentSessionId: f.sessionId,
    });
    expect(await status(f.sessionId, f.who)).toBe('success');
    expect(await f.invoice()).toMatchObject({ status: 'paid', balanceCents: 0 });
    expect((await f.settlements()).map((p) => p.amountCents)).toEqual([2000]);
    expect(await eventsFor('payment.reversed', f.sessionId, f.who)).toHaveLength(0);
    expect(await eventsFor('payment.failed', f.sessionId, f.who)).toHaveLength(0);
    expect((await audited(f)).map((a) => a.details)).toContainEqual(
      expect.objectContaining({ applied: false, reason: 'refunded', detail: '500 of 2000 USD refunded' }),
    );
  });

  it('a refund waits (409) while a reversal holds the session; the reconciler finishes the reversal', async () => {
    const f = await settled(1500);
    faults.only = ['reversePayment'];
    faults.applyThenFailNext = 1;
    const lost = await deliver(event(f.sessionId, 'payment.failed'), { to: f.integration });
    expect(lost.statusCode).toBe(502);
    const busy = await f.refund(100);
    expect(busy.statusCode).toBe(409);
    expect(errorBody(busy).code).toBe('conflict');
    expect(busy.headers['retry-after']).toBe('1');
    faults.reset();
    const report = await reconcileIntents(t.deps, {
      now: new Date(clock.now().getTime() + 3_600_000),
      tenantId: f.who.tenantId,
    });
    expect(report.completed).toBe(1);
    expect(await status(f.sessionId, f.who)).toBe('success');
    expect((await getSession(t.deps.db, f.who.tenantId, f.sessionId))?.reversal).toMatchObject({
      reason: 'provider_reported_failure',
    });
    expect(await f.invoice()).toMatchObject({ status: 'open', balanceCents: 1500 });
    const after = await f.refund(100);
    expect(errorBody(after).code).toBe('payment_not_refundable');
  });
});

describe('provider events: races', () => {
  it('complete and a provider event together: one terminal state, one settlement, one payment.succeeded', async () => {
    const f = await invoiceTenant(5000);
    faults.latencyMs = 20; // both settle before either commits
    // Whichever claims the session first settles; the other waits (409) and, retried, finds it terminal.
    const [complete, callback] = await Promise.all([
      retried(() =>
        t.app.inject({
          method: 'POST',
          url: `/api/v1/payments/${f.sessionId}/complete`,
          headers: bearer(f.who.keys.commerce),
        }),
      ),
      retried(() => deliver(event(f.sessionId), { to: f.integration })),
    ]);
    const winners = [complete.statusCode === 200, callback.json().applied === true].filter(Boolean);
    expect(winners, `${complete.body} ${callback.body}`).toHaveLength(1);
    expect(callback.statusCode).toBe(200);
    expect(await status(f.sessionId, f.who)).toBe('success');
    expect(await f.settlements()).toHaveLength(1);
    expect(await f.invoice()).toMatchObject({ status: 'paid', balanceCents: 0 });
    expect(await eventsFor('payment.succeeded', f.sessionId, f.who)).toHaveLength(1);
    expect(await eventsFor('invoice.paid', f.sessionId, f.who)).toHaveLength(1);
  });

  it('the same event delivered twice at once applies once', async () => {
    const f = await invoiceTenant(700);
    faults.latencyMs = 20;
    const e = event(f.sessionId);
    const answers = await Promise.all([
      retried(() => deliver(e, { to: f.integration })),
      retried(() => deliver(e, { to: f.integration })),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    expect(answers.filter((a) => a.json().applied)).toHaveLength(1);
    expect(await f.settlements()).toHaveLength(1);
    expect(await eventsFor('payment.succeeded', f.sessionId, f.who)).toHaveLength(1);
  });

  it('a success and a failure together: one terminal state; a failure after the success is its reversal', async () => {
    const sessionId = await newSession();
    await Promise.all([
      retried(() => deliver(event(sessionId, 'payment.succeeded'))),
      retried(() => deliver(event(sessionId, 'payment.failed'))),
    ]);
    const final = await getSession(t.deps.db, tenant.tenantId, sessionId);
    const succeeded = await eventsFor('payment.succeeded', sessionId);
    const failed = await eventsFor('payment.failed', sessionId);
    const reversed = await eventsFor('payment.reversed', sessionId);
    expect(succeeded.length + failed.length).toBe(1);
    // Failure first: failed, the success ignored. Success first: it stays, the failure reverses it.
    if (failed.length) expect([final?.status, final?.reversal, reversed.length]).toEqual(['failed', null, 0]);
    else
      expect([
        final?.status,
        final?.reversal?.providerReference.startsWith('provider:'),
        reversed.length,
      ]).toEqual(['success', true, 1]);
  });
});

describe('provider events: sandbox simulate', () => {
  it('drives the whole pay flow through the real, signed callback', async () => {
    const f = await invoiceTenant(1200);
    const simulated = await admin(
      'POST',
      '/payment-provider/simulate',
      { paymentSessionId: f.sessionId, outcome: 'succeeded' },
      f.who,
    );
    expect(simulated.statusCode).toBe(200);
    const data = simulated.json().data;
    expect(data.event).toMatchObject({
      id: expect.stringMatching(/^evt_[0-9a-f]{24}$/),
      type: 'payment.succeeded',
      data: { paymentSessionId: f.sessionId, amountCents: 1200 },
    });
    expect(data.delivery).toEqual({
      statusCode: 200,
      body: {
        received: true,
        applied: true,
        duplicate: false,
        paymentSessionId: f.sessionId,
        status: 'success',
      },
    });
    expect(await f.invoice()).toMatchObject({ status: 'paid' });
    expect(await eventsFor('payment.succeeded', f.sessionId, f.who)).toHaveLength(1);
    expect(await eventsFor('invoice.paid', f.sessionId, f.who)).toHaveLength(1);
  });

  it('simulates failures, duplicates by event id, and needs a configured provider', async () => {
    const sessionId = await newSession();
    const failed = await admin('POST', '/payment-provider/simulate', {
      paymentSessionId: sessionId,
      outcome: 'failed',
      eventId: `evt_sim_${sessionId}`,
    });
    expect(failed.json().data.event.data).toMatchObject({ failureReason: 'card_declined' });
    expect(failed.json().data.delivery.body).toMatchObject({ applied: true, status: 'failed' });
    const again = await admin('POST', '/payment-provider/simulate', {
      paymentSessionId: sessionId,
      outcome: 'failed',
      eventId: `evt_sim_${sessionId}`,
    });
    expect(again.json().data.delivery.body).toMatchObject({ duplicate: true });
    expect(await eventsFor('payment.failed', sessionId)).toHaveLength(1);

    const bare = await createTestTenant(t.deps);
    const none = await admin(
      'POST',
      '/payment-provider/simulate',
      { paymentSessionId: await newSession(bare), outcome: 'succeeded' },
      bare,
    );
    expect(none.statusCode).toBe(404);
  });

  it('derives the event id from an Idempotency-Key, so a retry is a duplicate', async () => {
    const sessionId = await newSession();
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/admin/payment-provider/simulate',
        headers: { ...bearer(tenant.keys.admin), 'idempotency-key': `sim-${sessionId}` },
        payload: { paymentSessionId: sessionId, outcome: 'succeeded' },
      });
    const first = (await send()).json().data;
    const second = (await send()).json().data;
    expect(second.event.id).toBe(first.event.id);
    expect(first.delivery.body.applied).toBe(true);
    expect(second.delivery.body.duplicate).toBe(true);
    expect(await eventsFor('payment.succeeded', sessionId)).toHaveLength(1);
  });
});
