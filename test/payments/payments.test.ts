import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { billingPayments } from '../../src/billing/builtin/tables.js';
import { FaultController, withFaults } from '../../src/billing/index.js';
import { listEvents } from '../../src/events/outbox.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';

let t: TestApp;
let tenant: TestTenant;
let engine: BuiltinBilling;
let billingId: string;
const faults = new FaultController();

beforeAll(async () => {
  t = await startApp({ wrapBilling: (a) => withFaults(a, faults) });
  tenant = await createTestTenant(t.deps);
  await t.app.inject({
    method: 'PUT',
    url: '/api/v1/admin/billing-integration',
    headers: bearer(tenant.keys.admin),
    payload: { adapter: 'builtin' },
  });
  engine = new BuiltinBilling(t.deps.db, t.deps.clock, tenant.tenantId);
  billingId = (await engine.createAccount({ name: 'Acme', currency: 'USD' })).id;
});
afterAll(() => t.app.close());

const newInvoice = async (cents: number) => {
  const r = await engine.createInvoice({
    accountId: billingId,
    currency: 'USD',
    lines: [{ description: 'x', quantity: 1, unitAmountCents: cents }],
    idempotencyKey: `inv-${Math.random()}`,
  });
  if (!r.ok) throw new Error('invoice');
  return r.value;
};
/** A session paying an invoice of the tenant's billing account (the invoice's own account). */
const payer = () => ({ ...valid, accountId: billingId });
const post = (
  url: string,
  payload?: object,
  headers: Record<string, string> = {},
  key = tenant.keys.commerce,
) => api(t, key).post(url, payload, { headers });
const get = (url: string, key = tenant.keys.read) => api(t, key).get(url);
const valid = { accountId: 'acct_123', amountCents: 500, currency: 'USD' };

describe('payment sessions: create and validate', () => {
  it('creates a pending session with exact fields and an event, and reads it back', async () => {
    const res = await post('/payments', { ...valid, paymentPageSlug: 'checkout-1' });
    expect(res.statusCode).toBe(201);
    const s = res.json().data;
    expect(s).toMatchObject({
      tenantId: tenant.tenantId,
      accountId: 'acct_123',
      amountCents: 500,
      currency: 'USD',
      status: 'pending',
      invoiceId: null,
      paymentPageSlug: 'checkout-1',
    });
    // No invoice: nothing says `acct_123` is a billing account, so no invoice list is offered.
    expect(res.json().nextActions.map((a: { rel: string }) => a.rel)).toEqual(['self', 'complete']);
    expect((await get(`/payments/${s.id}`)).json().data).toEqual(s);
    const events = await listEvents(t.deps.db, tenant.tenantId, 'payment.session_created');
    expect(events.filter((e) => (e.payload as { id: string }).id === s.id)).toHaveLength(1);
  });

  it.each([
    [{ ...valid, accountId: undefined }, 'accountId', 'required'],
    [{ ...valid, accountId: '' }, 'accountId', 'minLength'],
    [{ ...valid, accountId: 'a'.repeat(65) }, 'accountId', 'maxLength'],
    [{ ...valid, accountId: 'bad id!' }, 'accountId', 'pattern'],
    [{ ...valid, amountCents: 0 }, 'amountCents', 'minimum'],
    [{ ...valid, amountCents: 1.5 }, 'amountCents', 'type'],
    [{ ...valid, currency: 'usd' }, 'currency', 'pattern'],
    [{ ...valid, currency: 'USDX' }, 'currency', 'pattern'],
    [{ ...valid, invoiceId: 'i'.repeat(256) }, 'invoiceId', 'maxLength'],
    [{ ...valid, paymentPageSlug: 'p'.repeat(256) }, 'paymentPageSlug', 'maxLength'],
  ])('400 naming the field: %j', async (body, field, rule) => {
    const res = await post('/payments', body);
    expect(res.statusCode).toBe(400);
    expect(errorBody(res).details).toContainEqual(expect.objectContaining({ field, rule }));
  });

  it('accepts bounds at their edge', async () => {
    expect(
      (await post('/payments', { ...valid, accountId: 'a'.repeat(64), paymentPageSlug: 'p'.repeat(255) }))
        .statusCode,
    ).toBe(201);
  });

  it('checks the invoice: unknown 400, not open or other currency 409', async () => {
    expect(
      errorBody(await post('/payments', { ...valid, invoiceId: 'in_00000000000000000000' })).details?.[0],
    ).toMatchObject({ field: 'invoiceId' });
    const voided = await newInvoice(100);
    await engine.closeInvoice(voided.id, 'void');
    expect((await post('/payments', { ...payer(), invoiceId: voided.id })).statusCode).toBe(409);
    const open = await newInvoice(100);
    expect((await post('/payments', { ...payer(), currency: 'EUR', invoiceId: open.id })).statusCode).toBe(
      409,
    );
    const paid = await post(`/invoices/${open.id}/pay`, { ...payer(), amountCents: 100 });
    expect(paid.statusCode).toBe(201);
    expect(paid.json().data.invoiceId).toBe(open.id);
  });
});

describe('payment sessions: paying invoices, completion and listing', () => {
  it('pays an invoice only from its own account, for at most its balance', async () => {
    const invoice = await newInvoice(1000);
    // Another account, made up or real, is 400 naming accountId (it once took money off this invoice).
    const bogus = await post(`/invoices/${invoice.id}/pay`, { ...valid, accountId: 'totally_bogus' });
    expect(bogus.statusCode).toBe(400);
    expect(errorBody(bogus).details?.[0]).toMatchObject({ field: 'accountId', rule: 'matches' });
    const otherBilling = (await engine.createAccount({ name: 'Other', currency: 'USD' })).id;
    expect(
      (await post(`/invoices/${invoice.id}/pay`, { ...valid, accountId: otherBilling })).statusCode,
    ).toBe(400);
    const unlinked = (await post('/accounts', { name: 'Unlinked' })).json().data.id as string;
    expect((await post(`/invoices/${invoice.id}/pay`, { ...valid, accountId: unlinked })).statusCode).toBe(
      400,
    );
    // A local account linked to the invoice's billing account is resolved to it.
    const linked = (await post('/accounts', { name: 'Linked', externalId: billingId })).json().data
      .id as string;
    const viaLocal = await post(`/invoices/${invoice.id}/pay`, {
      ...valid,
      accountId: linked,
      amountCents: 300,
    });
    expect(viaLocal.statusCode, viaLocal.body).toBe(201);
    expect(viaLocal.json().data.accountId).toBe(billingId);
    // More than the balance is refused at create.
    const over = await post(`/invoices/${invoice.id}/pay`, { ...payer(), amountCents: 1001 });
    expect(over.statusCode).toBe(400);
    expect(errorBody(over).details?.[0]).toMatchObject({ field: 'amountCents', rule: 'maximum' });
    const sessions = (await get(`/payments?accountId=totally_bogus`)).json().data;
    expect(sessions).toEqual([]);
  });

  it('complete settles the invoice: partial then full, read back through the account invoices', async () => {
    const invoice = await newInvoice(1000);
    const first = (await post(`/invoices/${invoice.id}/pay`, { ...payer(), amountCents: 400 })).json().data;
    const done = await post(`/payments/${first.id}/complete`);
    expect(done.statusCode).toBe(200);
    expect(done.json().data.status).toBe('success');
    const after = (await get(`/accounts/${billingId}/invoices`))
      .json()
      .data.find((i: { id: string }) => i.id === invoice.id);
    expect(after).toMatchObject({ balanceCents: 600, balance: 6, status: 'open' });
    const second = (await post(`/invoices/${invoice.id}/pay`, { ...payer(), amountCents: 600 })).json().data;
    await post(`/payments/${second.id}/complete`);
    const paid = (await get(`/accounts/${billingId}/invoices`))
      .json()
      .data.find((i: { id: string }) => i.id === invoice.id);
    expect(paid).toMatchObject({ balanceCents: 0, status: 'paid' });
    const invoicePaid = await listEvents(t.deps.db, tenant.tenantId, 'invoice.paid');
    expect(
      invoicePaid.filter((e) => (e.payload as { resourceId: string }).resourceId === invoice.id),
    ).toHaveLength(1);
    const again = await post(`/payments/${first.id}/complete`);
    expect(again.statusCode).toBe(400);
    expect(errorBody(again)).toMatchObject({
      code: 'session_terminal',
      nextActions: [{ rel: 'self', method: 'GET', href: `/api/v1/payments/${first.id}` }],
    });
  });

  it('a settlement outage leaves the session pending (502); the same Idempotency-Key then completes it once', async () => {
    const invoice = await newInvoice(700);
    const s = (await post(`/invoices/${invoice.id}/pay`, { ...payer(), amountCents: 700 })).json().data;
    faults.failNext = 1;
    const failed = await post(`/payments/${s.id}/complete`, undefined, {
      'idempotency-key': `complete-${s.id}`,
    });
    expect(failed.statusCode).toBe(502);
    expect((await get(`/payments/${s.id}`)).json().data.status).toBe('pending');
    const retried = await post(`/payments/${s.id}/complete`, undefined, {
      'idempotency-key': `complete-${s.id}`,
    });
    expect(retried.statusCode).toBe(200);
    const replay = await post(`/payments/${s.id}/complete`, undefined, {
      'idempotency-key': `complete-${s.id}`,
    });
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    const payments = await t.deps.db
      .select()
      .from(billingPayments)
      .where(and(eq(billingPayments.tenantId, tenant.tenantId), eq(billingPayments.invoiceId, invoice.id)));
    expect(payments).toHaveLength(1);
  });

  it('concurrent completes: exactly one success, one settlement, one payment.succeeded', async () => {
    const invoice = await newInvoice(900);
    const s = (await post(`/invoices/${invoice.id}/pay`, { ...payer(), amountCents: 900 })).json().data;
    const results = await Promise.all(Array.from({ length: 6 }, () => post(`/payments/${s.id}/complete`)));
    // One settles; the others found it settling (409, retry) or already terminal (400).
    const statuses = results.map((r) => r.statusCode);
    expect(statuses.filter((c) => c === 200)).toHaveLength(1);
    expect(statuses.every((c) => [200, 400, 409].includes(c))).toBe(true);
    const payments = await t.deps.db
      .select()
      .from(billingPayments)
      .where(and(eq(billingPayments.tenantId, tenant.tenantId), eq(billingPayments.invoiceId, invoice.id)));
    expect(payments).toHaveLength(1);
    const succeeded = await listEvents(t.deps.db, tenant.tenantId, 'payment.succeeded');
    expect(succeeded.filter((e) => (e.payload as { id: string }).id === s.id)).toHaveLength(1);
  });

  it('lists newest first with filters; 404 across tenants; scopes', async () => {
    const shop = await createTestTenant(t.deps);
    const a = (await post('/payments', { ...valid, accountId: 'acct_a' }, {}, shop.keys.commerce)).json()
      .data;
    const b = (await post('/payments', { ...valid, accountId: 'acct_b' }, {}, shop.keys.commerce)).json()
      .data;
    await post(`/payments/${a.id}/complete`, undefined, {}, shop.keys.commerce);
    expect((await get('/payments', shop.keys.read)).json().data.map((s: { id: string }) => s.id)).toEqual([
      b.id,
      a.id,
    ]);
    expect(
      (await get('/payments?accountId=acct_b', shop.keys.read)).json().data.map((s: { id: string }) => s.id),
    ).toEqual([b.id]);
    expect(
      (await get('/payments?status=success', shop.keys.read)).json().data.map((s: { id: string }) => s.id),
    ).toEqual([a.id]);
    expect((await get(`/payments/${a.id}`)).statusCode).toBe(404);
    expect((await post(`/payments/${b.id}/complete`)).statusCode).toBe(404);
    expect((await post('/payments', valid, {}, shop.keys.read)).statusCode).toBe(403);
  });
});
