import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { billingPayments } from '../../src/billing/builtin/tables.js';
import { FaultController, presentInvoice, unwrapBilling, withFaults } from '../../src/billing/index.js';
import { listEvents } from '../../src/events/outbox.js';
import { respond } from '../../src/http/operation.js';
import { runUnitOfWork } from '../../src/unit-of-work/index.js';
import { intents } from '../../src/unit-of-work/tables.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api, type Method } from '../support/api.js';

const value = <T>(r: { ok: true; value: T } | { ok: false; failure: unknown }): T => {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.failure)}`);
  return r.value;
};

let t: TestApp;
let tenant: TestTenant;
let engine: BuiltinBilling;
const faults = new FaultController();
let failCommit = false;

beforeAll(async () => {
  t = await startApp({
    wrapBilling: (a) => withFaults(a, faults),
    extraRoutes: (app) => {
      app.post(
        '/test/adapter-inside-transaction',
        { config: { public: false, scope: 'commerce' } },
        async (request, reply) =>
          respond(
            t.deps,
            request,
            reply,
            (ctx, key) =>
              runUnitOfWork(t.deps, ctx, key, async () => {
                await (await t.deps.billing.forTenant(t.deps.db, tenant.tenantId))?.listInvoices(
                  'ba_00000000000000000000',
                );
                return {};
              }),
            (body) => ({ status: 200, body }),
          ),
      );
      // The shape of every flow that settles: the idempotent adapter call first, then our commit.
      app.post<{ Params: { invoiceId: string } }>(
        '/test/settle/:invoiceId',
        { config: { public: false, scope: 'commerce' } },
        async (request, reply) => {
          const adapter = await t.deps.billing.forTenant(t.deps.db, tenant.tenantId);
          if (!adapter) throw new Error('no integration');
          const key = `settle:${request.headers['idempotency-key']}`;
          const invoice = unwrapBilling(
            await adapter.settleInvoice(request.params.invoiceId, {
              amountCents: 400,
              currency: 'USD',
              paymentReference: 'ps_1',
              idempotencyKey: key,
            }),
            'Invoice',
          );
          return respond(
            t.deps,
            request,
            reply,
            (ctx, key) =>
              runUnitOfWork(t.deps, ctx, key, async () => {
                if (failCommit) throw new Error('our commit failed');
                return { balanceCents: invoice.balanceCents };
              }),
            (body) => ({ status: 200, body }),
          );
        },
      );
    },
  });
  tenant = await createTestTenant(t.deps);
  engine = new BuiltinBilling(t.deps.db, t.deps.clock, tenant.tenantId);
});
afterAll(() => t.app.close());

const newAccount = (currency = 'USD') =>
  engine.createAccount({
    name: 'Acme',
    currency,
    contacts: [{ name: 'Ada', email: 'ada@example.com', phone: null }],
  });

describe('built-in billing engine: ids, amounts and settlement', () => {
  it('mints account ids and numbers in its own documented format', async () => {
    const a = await newAccount();
    const b = await newAccount();
    expect(a.id).toMatch(/^ba_[0-9a-z]{20}$/);
    expect(engine.isAccountId(a.id)).toBe(true);
    expect(engine.isAccountId('ba_short')).toBe(false);
    expect(Number(b.accountNumber.slice(2)) - Number(a.accountNumber.slice(2))).toBe(1);
    expect(a.accountNumber).toMatch(/^A-\d{6}$/);
  });

  it('settles partially then fully, with exact integer arithmetic', async () => {
    const account = await newAccount();
    const invoice = value(
      await engine.createInvoice({
        accountId: account.id,
        currency: 'USD',
        lines: [
          { description: 'Seats', quantity: 3, unitAmountCents: 1999 },
          { description: 'Setup', quantity: 1, unitAmountCents: 3 },
        ],
        idempotencyKey: `inv-${account.id}`,
      }),
    );
    expect(invoice).toMatchObject({
      amountCents: 6000,
      balanceCents: 6000,
      status: 'open',
      invoiceNumber: expect.stringMatching(/^INV-\d{6}$/),
    });
    expect(presentInvoice(invoice)).toMatchObject({ amount: 60, balance: 60 });
    const partial = value(
      await engine.settleInvoice(invoice.id, {
        amountCents: 1001,
        currency: 'USD',
        paymentReference: 'p1',
        idempotencyKey: 'p1',
      }),
    );
    expect(partial).toMatchObject({ balanceCents: 4999, status: 'open' });
    expect(presentInvoice(partial).balance).toBe(49.99);
    expect(value(await engine.getAccount(account.id)).balanceCents).toBe(4999);
    const full = value(
      await engine.settleInvoice(invoice.id, {
        amountCents: 4999,
        currency: 'USD',
        paymentReference: 'p2',
        idempotencyKey: 'p2',
      }),
    );
    expect(full).toMatchObject({ balanceCents: 0, status: 'paid' });
    expect(value(await engine.getAccount(account.id)).balanceCents).toBe(0);
    const again = await engine.settleInvoice(invoice.id, {
      amountCents: 1,
      currency: 'USD',
      paymentReference: 'p3',
      idempotencyKey: 'p3',
    });
    expect(again).toEqual({
      ok: false,
      failure: { kind: 'conflict', message: `invoice ${invoice.id} is paid, not open` },
    });
  });

  it('has no float drift: ten payments of 0.10 pay 1.00 exactly', async () => {
    const account = await newAccount();
    const invoice = value(
      await engine.createInvoice({
        accountId: account.id,
        currency: 'USD',
        lines: [{ description: 'x', quantity: 1, unitAmountCents: 100 }],
        idempotencyKey: `drift-${account.id}`,
      }),
    );
    let last = invoice;
    for (let i = 0; i < 10; i++) {
      last = value(
        await engine.settleInvoice(invoice.id, {
          amountCents: 10,
          currency: 'USD',
          paymentReference: `d${i}`,
          idempotencyKey: `drift-${invoice.id}-${i}`,
        }),
      );
    }
    expect(last).toMatchObject({ balanceCents: 0, status: 'paid' });
    expect(presentInvoice(last)).toMatchObject({ amount: 1, balance: 0 });
  });

  it('renders decimals with each currency’s exponent', async () => {
    for (const [currency, cents, decimal] of [
      ['USD', 1234, 12.34],
      ['JPY', 1234, 1234],
      ['BHD', 1234, 1.234],
      ['EUR', 5, 0.05],
    ] as const) {
      const account = await newAccount(currency);
      const invoice = value(
        await engine.createInvoice({
          accountId: account.id,
          currency,
          lines: [{ description: 'x', quantity: 1, unitAmountCents: cents }],
          idempotencyKey: `dec-${account.id}`,
        }),
      );
      expect(presentInvoice(invoice).amount, currency).toBe(decimal);
    }
  });

  it('refuses invalid settlements as values naming the field', async () => {
    const account = await newAccount();
    const invoice = value(
      await engine.createInvoice({
        accountId: account.id,
        currency: 'USD',
        lines: [{ description: 'x', quantity: 1, unitAmountCents: 500 }],
        idempotencyKey: `inv2-${account.id}`,
      }),
    );
    const pay = (amountCents: number, currency = 'USD') =>
      engine.settleInvoice(invoice.id, {
        amountCents,
        currency,
        paymentReference: 'x',
        idempotencyKey: `bad-${amountCents}-${currency}`,
      });
    expect(await pay(501)).toMatchObject({ ok: false, failure: { kind: 'invalid', field: 'amountCents' } });
    expect(await pay(0)).toMatchObject({ ok: false, failure: { kind: 'invalid', field: 'amountCents' } });
    expect(await pay(100, 'EUR')).toMatchObject({
      ok: false,
      failure: { kind: 'invalid', field: 'currency' },
    });
    expect(
      await engine.settleInvoice('in_00000000000000000000', {
        amountCents: 1,
        currency: 'USD',
        paymentReference: 'x',
        idempotencyKey: 'nf',
      }),
    ).toMatchObject({
      ok: false,
      failure: { kind: 'not_found' },
    });
    expect(value(await engine.getInvoice(invoice.id)).balanceCents).toBe(500);
  });

  it('never invoices or settles twice for one idempotency key', async () => {
    const account = await newAccount();
    const input = {
      accountId: account.id,
      currency: 'USD',
      lines: [{ description: 'x', quantity: 1, unitAmountCents: 700 }],
      idempotencyKey: `once-${account.id}`,
    };
    const first = value(await engine.createInvoice(input));
    const second = value(await engine.createInvoice(input));
    expect(second.id).toBe(first.id);
    expect(value(await engine.listInvoices(account.id))).toHaveLength(1);
    const settle = () =>
      engine.settleInvoice(first.id, {
        amountCents: 300,
        currency: 'USD',
        paymentReference: 'ps',
        idempotencyKey: `settle-${first.id}`,
      });
    await settle();
    expect(value(await settle()).balanceCents).toBe(400);
  });
});

describe('built-in billing engine: once per key, subscriptions and quotes', () => {
  it('adapter succeeded, our commit failed, the client retried: settled exactly once', async () => {
    await t.deps.db.transaction(async () => {}); // warm
    const adapter = withFaults(engine, faults);
    await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/billing-integration',
      headers: bearer(tenant.keys.admin),
      payload: { adapter: 'builtin' },
    });
    const account = await newAccount();
    const invoice = value(
      await adapter.createInvoice({
        accountId: account.id,
        currency: 'USD',
        lines: [{ description: 'x', quantity: 1, unitAmountCents: 1000 }],
        idempotencyKey: `retry-${account.id}`,
      }),
    );
    const attempt = () =>
      t.app.inject({
        method: 'POST',
        url: `/test/settle/${invoice.id}`,
        headers: { ...bearer(tenant.keys.commerce), 'idempotency-key': `k-${invoice.id}` },
        payload: {},
      });
    failCommit = true;
    expect((await attempt()).statusCode).toBe(500);
    failCommit = false;
    const retried = await attempt();
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toEqual({ balanceCents: 600 });
    expect(value(await engine.getInvoice(invoice.id)).balanceCents).toBe(600);
    const payments = await t.deps.db
      .select()
      .from(billingPayments)
      .where(and(eq(billingPayments.tenantId, tenant.tenantId), eq(billingPayments.invoiceId, invoice.id)));
    expect(payments).toHaveLength(1);
  });

  it('refuses, at once and without deadlock, an adapter call inside the API transaction', async () => {
    await t.deps.billing.integration(t.deps.db, tenant.tenantId);
    await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/billing-integration',
      headers: bearer(tenant.keys.admin),
      payload: { adapter: 'builtin' },
    });
    const started = Date.now();
    const res = await t.app.inject({
      method: 'POST',
      url: '/test/adapter-inside-transaction',
      headers: bearer(tenant.keys.commerce),
      payload: {},
    });
    expect(res.statusCode).toBe(500);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('provisions, changes, cancels and renews subscriptions once per key, invoicing periods with credits', async () => {
    const account = await newAccount();
    const base = {
      accountId: account.id,
      productId: 'p1',
      productName: 'Pro',
      quantity: 2,
      priceCents: 5000,
      currency: 'USD',
      billingInterval: 'month' as const,
      currentPeriodStart: '2031-01-01T00:00:00.000Z',
      currentPeriodEnd: '2031-02-01T00:00:00.000Z',
      invoiceFirstPeriod: true,
      idempotencyKey: `sub-${account.id}`,
    };
    const created = value(await engine.provisionSubscription(base));
    expect(created.subscription).toMatchObject({ status: 'active', priceCents: 5000, quantity: 2 });
    expect(created.invoice?.amountCents).toBe(5000);
    const repeat = value(await engine.provisionSubscription(base));
    expect(repeat.subscription.id).toBe(created.subscription.id);
    expect(value(await engine.listSubscriptions(account.id))).toHaveLength(1);
    const sub = created.subscription.id;
    const down = value(
      await engine.changeSubscription({
        subscriptionId: sub,
        priceCents: 3000,
        creditCents: 1200,
        idempotencyKey: `down-${sub}`,
      }),
    );
    expect(down).toMatchObject({ subscription: { priceCents: 3000 }, invoice: null });
    const up = value(
      await engine.changeSubscription({
        subscriptionId: sub,
        priceCents: 4000,
        chargeCents: 250,
        idempotencyKey: `up-${sub}`,
      }),
    );
    expect(up.invoice?.amountCents).toBe(250);
    const renewed = value(
      await engine.renewSubscription({
        subscriptionId: sub,
        currentPeriodStart: '2031-02-01T00:00:00.000Z',
        currentPeriodEnd: '2031-03-01T00:00:00.000Z',
        idempotencyKey: `renew-${sub}`,
      }),
    );
    expect(renewed.invoice).toMatchObject({ amountCents: 2800 });
    expect(renewed.invoice?.lines.map((l) => l.amountCents)).toEqual([4000, -1200]);
    const cancelled = value(
      await engine.cancelSubscription({
        subscriptionId: sub,
        timing: 'end_of_period',
        idempotencyKey: `cancel-${sub}`,
      }),
    );
    expect(cancelled.subscription.status).toBe('pending_cancellation');
    value(
      await engine.cancelSubscription({
        subscriptionId: sub,
        timing: 'immediate',
        idempotencyKey: `cancel2-${sub}`,
      }),
    );
    expect(
      await engine.renewSubscription({
        subscriptionId: sub,
        currentPeriodStart: base.currentPeriodStart,
        currentPeriodEnd: base.currentPeriodEnd,
        idempotencyKey: `renew2-${sub}`,
      }),
    ).toMatchObject({
      ok: false,
      failure: { kind: 'conflict' },
    });
  });

  it('quotes passthrough charges from configured rates', async () => {
    const quoting = new BuiltinBilling(t.deps.db, t.deps.clock, tenant.tenantId, {
      passthroughRates: { c1: 250 },
      defaultPassthroughUnitCents: 100,
    });
    const quote = value(
      await quoting.quoteCart([
        { productId: 'p', chargeId: 'c1', chargeName: 'Carrier', quantity: 3, currency: 'USD' },
        { productId: 'p', chargeId: 'c2', chargeName: 'Other', quantity: 2, currency: 'USD' },
      ]),
    );
    expect(quote).toEqual({
      lines: [
        { productId: 'p', chargeId: 'c1', amountCents: 750 },
        { productId: 'p', chargeId: 'c2', amountCents: 200 },
      ],
      totalCents: 950,
      currency: 'USD',
    });
    expect(
      await engine.quoteCart([
        { productId: 'p', chargeId: 'c9', chargeName: 'Other', quantity: 1, currency: 'USD' },
      ]),
    ).toMatchObject({
      ok: false,
      failure: { kind: 'invalid', field: 'lines.0.chargeId' },
    });
  });
});

describe('built-in billing engine: reversal, void and what a key did (findOperation)', () => {
  const issue = async (cents: number, key = `inv-${Math.random()}`) => {
    const account = await newAccount();
    const invoice = value(
      await engine.createInvoice({
        accountId: account.id,
        currency: 'USD',
        lines: [{ description: 'x', quantity: 1, unitAmountCents: cents }],
        idempotencyKey: key,
      }),
    );
    return { account, invoice };
  };
  const settle = (invoiceId: string, cents: number, reference: string, key = `s-${Math.random()}`) =>
    engine.settleInvoice(invoiceId, {
      amountCents: cents,
      currency: 'USD',
      paymentReference: reference,
      idempotencyKey: key,
    });
  const paymentsOf = async (invoiceId: string) =>
    (
      await t.deps.db
        .select()
        .from(billingPayments)
        .where(and(eq(billingPayments.tenantId, tenant.tenantId), eq(billingPayments.invoiceId, invoiceId)))
    ).map((p) => p.amountCents);

  it('reverses a settlement once: the balance grows back, a paid invoice is open again', async () => {
    const { invoice } = await issue(5000);
    value(await settle(invoice.id, 2000, 'ps_a'));
    expect(value(await settle(invoice.id, 3000, 'ps_b'))).toMatchObject({
      status: 'paid',
      balanceCents: 0,
    });
    const reversed = value(
      await engine.reversePayment(invoice.id, { paymentReference: 'ps_b', idempotencyKey: 'rev-b' }),
    );
    expect(reversed).toMatchObject({ status: 'open', balanceCents: 3000 });
    // The same key again: the same result, no second reversal.
    expect(
      value(await engine.reversePayment(invoice.id, { paymentReference: 'ps_b', idempotencyKey: 'rev-b' })),
    ).toEqual(reversed);
    expect(await paymentsOf(invoice.id)).toEqual(expect.arrayContaining([2000, 3000, -3000]));
    expect((await paymentsOf(invoice.id)).reduce((a, b) => a + b, 0)).toBe(2000);
    // Another key for a reversed payment: conflict; an unknown payment: not_found.
    expect(
      await engine.reversePayment(invoice.id, { paymentReference: 'ps_b', idempotencyKey: 'rev-b2' }),
    ).toMatchObject({
      ok: false,
      failure: { kind: 'conflict' },
    });
    expect(
      await engine.reversePayment(invoice.id, { paymentReference: 'ps_x', idempotencyKey: 'rev-x' }),
    ).toMatchObject({
      ok: false,
      failure: { kind: 'not_found' },
    });
  });

  it('voids only an invoice nothing is paid on; void again is the same invoice', async () => {
    const { invoice } = await issue(1200);
    const voided = value(await engine.voidInvoice(invoice.id, `void-${invoice.id}`));
    expect(voided).toMatchObject({ status: 'void', balanceCents: 1200 });
    expect(value(await engine.voidInvoice(invoice.id, 'another-key'))).toMatchObject({ status: 'void' });
    const partly = (await issue(1200)).invoice;
    value(await settle(partly.id, 200, 'ps_p'));
    expect(await engine.voidInvoice(partly.id, 'void-partly')).toMatchObject({
      ok: false,
      failure: { kind: 'conflict' },
    });
    expect(await engine.voidInvoice('in_00000000000000000000', 'void-none')).toMatchObject({
      ok: false,
      failure: { kind: 'not_found' },
    });
  });

  it('tells what a key did: the recorded result, or null (never seen, or refused)', async () => {
    const { account, invoice } = await issue(900, 'find-invoice');
    expect(value(await engine.findOperation('find-invoice'))).toEqual({ kind: 'invoice', invoice });
    const provisioned = value(
      await engine.provisionSubscription({
        accountId: account.id,
        productId: 'prod',
        productName: 'Plan',
        quantity: 1,
        priceCents: 700,
        currency: 'USD',
        billingInterval: 'month',
        currentPeriodStart: '2026-01-01T00:00:00.000Z',
        currentPeriodEnd: '2026-02-01T00:00:00.000Z',
        invoiceFirstPeriod: true,
        idempotencyKey: 'find-sub',
      }),
    );
    expect(value(await engine.findOperation('find-sub'))).toEqual({
      kind: 'subscription',
      change: provisioned,
    });
    // The invoices a subscription issues name it.
    expect(provisioned.invoice?.subscriptionId).toBe(provisioned.subscription.id);
    expect(invoice.subscriptionId).toBeNull();
    expect(value(await engine.findOperation('never-used'))).toBeNull();
    expect(await settle(invoice.id, 99_999, 'ps_over', 'find-refused')).toMatchObject({ ok: false });
    expect(value(await engine.findOperation('find-refused'))).toBeNull();
    // Another tenant's engine knows nothing of these keys.
    const elsewhere = new BuiltinBilling(t.deps.db, t.deps.clock, (await createTestTenant(t.deps)).tenantId);
    expect(value(await elsewhere.findOperation('find-invoice'))).toBeNull();
  });
});

describe('billing admin endpoints', () => {
  let t: TestApp;
  let tenant: TestTenant;
  const faults = new FaultController();

  beforeAll(async () => {
    t = await startApp({ wrapBilling: (a) => withFaults(a, faults) });
    tenant = await createTestTenant(t.deps);
  });
  afterAll(() => t.app.close());

  const call = (
    method: string,
    url: string,
    payload?: object,
    key = tenant.keys.admin,
    headers: Record<string, string> = {},
  ) => api(t, key).send(method as Method, `/admin${url}`, payload, { headers });

  it('manages the one billing integration, validating its config', async () => {
    const none = await call('GET', '/billing-integration');
    expect(none.statusCode).toBe(200);
    expect(none.json().data).toMatchObject({
      adapter: null,
      config: null,
      availableAdapters: [{ name: 'builtin' }],
    });
    expect(
      errorBody(await call('PUT', '/billing-integration', { adapter: 'stripe' })).details?.[0],
    ).toMatchObject({ field: 'adapter' });
    const badConfig = await call('PUT', '/billing-integration', {
      adapter: 'builtin',
      config: { paymentTermsDays: 400, extra: 1 },
    });
    expect(badConfig.statusCode).toBe(400);
    expect(errorBody(badConfig).details?.map((d) => d.field)).toEqual(
      expect.arrayContaining(['config.paymentTermsDays', 'config.extra']),
    );
    const put = await call('PUT', '/billing-integration', {
      adapter: 'builtin',
      config: { paymentTermsDays: 14 },
    });
    expect(put.statusCode).toBe(200);
    expect((await call('GET', '/billing-integration')).json().data).toMatchObject({
      adapter: 'builtin',
      config: { paymentTermsDays: 14 },
    });
    expect((await call('GET', '/billing-integration', undefined, tenant.keys.commerce)).statusCode).toBe(403);
    const other = await createTestTenant(t.deps);
    expect(
      (await call('GET', '/billing-integration', undefined, other.keys.admin)).json().data.adapter,
    ).toBeNull();
  });

  it('opens accounts, issues, voids and writes off invoices, with events and audit', async () => {
    const account = (
      await call('POST', '/billing/accounts', {
        name: 'Globex',
        currency: 'EUR',
        contacts: [{ email: 'ap@globex.test' }],
      })
    ).json().data;
    expect(account).toMatchObject({
      source: 'billing',
      name: 'Globex',
      currency: 'EUR',
      balance: 0,
      contacts: [{ name: null, email: 'ap@globex.test', phone: null }],
    });
    const issue = () =>
      call(
        'POST',
        `/billing/accounts/${account.id}/invoices`,
        { lines: [{ description: 'Consulting', quantity: 2, unitAmountCents: 12_550 }] },
        tenant.keys.admin,
        { 'idempotency-key': `issue-${account.id}` },
      );
    const issued = await issue();
    expect(issued.statusCode).toBe(201);
    const invoice = issued.json().data;
    expect(invoice).toMatchObject({ amount: 251, amountCents: 25_100, currency: 'EUR', status: 'open' });
    expect(Date.parse(invoice.dueDate) - Date.parse(invoice.invoiceDate)).toBe(14 * 86_400_000); // integration config
    const replay = await issue();
    expect(replay.headers['x-idempotency-replayed']).toBe('true');
    expect(
      (await call('GET', '/billing/accounts')).json().data.find((a: { id: string }) => a.id === account.id)
        .balanceCents,
    ).toBe(25_100);
    const events = await listEvents(t.deps.db, tenant.tenantId, 'invoice.created');
    expect(
      events.filter((e) => (e.payload as { resourceId: string }).resourceId === invoice.id),
    ).toHaveLength(1);
    const voided = await call('POST', `/billing/invoices/${invoice.id}/void`);
    expect(voided.json().data.status).toBe('void');
    expect((await call('POST', `/billing/invoices/${invoice.id}/void`)).statusCode).toBe(200);
    const writeOff = await call('POST', `/billing/invoices/${invoice.id}/mark-uncollectible`);
    expect(writeOff.statusCode).toBe(409);
    expect((await call('POST', '/billing/invoices/in_00000000000000000000/void')).statusCode).toBe(404);
    const audit = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/audit-logs?resourceId=${invoice.id}`,
        headers: bearer(tenant.keys.admin),
      })
    ).json().data;
    expect(audit.map((e: { action: string }) => e.action)).toEqual([
      'billing_invoice.void',
      'billing_invoice.create',
    ]);
  });

  it('refuses to void a partly paid invoice over the operator route, changing nothing', async () => {
    const account = (await call('POST', '/billing/accounts', { name: 'Partly', currency: 'USD' })).json()
      .data;
    const issued = await call('POST', `/billing/accounts/${account.id}/invoices`, {
      lines: [{ description: 'Seats', quantity: 1, unitAmountCents: 500 }],
    });
    const invoice = issued.json().data as { id: string };
    const engine = new BuiltinBilling(t.deps.db, t.deps.clock, tenant.tenantId);
    value(
      await engine.settleInvoice(invoice.id, {
        amountCents: 200,
        currency: 'USD',
        paymentReference: 'ps_partly',
        idempotencyKey: 'partly-paid',
      }),
    );
    const intentsBefore = await t.deps.db.select().from(intents).where(eq(intents.tenantId, tenant.tenantId));
    const eventsBefore = await listEvents(t.deps.db, tenant.tenantId);
    const refused = await call('POST', `/billing/invoices/${invoice.id}/void`, undefined, tenant.keys.admin, {
      'idempotency-key': `void-${invoice.id}`,
    });
    expect(refused.statusCode).toBe(409);
    expect(errorBody(refused)).toMatchObject({
      code: 'conflict',
      error: expect.stringContaining('partly paid (200 of 500 USD'),
    });
    const after = value(await engine.getInvoice(invoice.id));
    expect(after).toMatchObject({ status: 'open', balanceCents: 300 });
    expect(await listEvents(t.deps.db, tenant.tenantId)).toEqual(eventsBefore);
    expect(await t.deps.db.select().from(intents).where(eq(intents.tenantId, tenant.tenantId))).toEqual(
      intentsBefore,
    );
    const audit = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/audit-logs?resourceId=${invoice.id}`,
        headers: bearer(tenant.keys.admin),
      })
    ).json().data;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['billing_invoice.create']);
    // Writing it off stays possible: what is left is not collected, what was paid is kept.
    const writeOff = await call('POST', `/billing/invoices/${invoice.id}/mark-uncollectible`);
    expect(writeOff.statusCode, writeOff.body).toBe(200);
    expect(writeOff.json().data).toMatchObject({ status: 'uncollectible' });
  });

  it('keeps each tenant’s billing data apart', async () => {
    const account = (await call('POST', '/billing/accounts', { name: 'Mine', currency: 'USD' })).json().data;
    const other = await createTestTenant(t.deps);
    expect((await call('GET', '/billing/accounts', undefined, other.keys.admin)).json().data).toEqual([]);
    const foreign = await call(
      'POST',
      `/billing/accounts/${account.id}/invoices`,
      { lines: [{ description: 'x', unitAmountCents: 1 }] },
      other.keys.admin,
    );
    expect(foreign.statusCode).toBe(404);
  });

  it('answers 502 billing_unavailable during an outage, and works again after', async () => {
    faults.failNext = 1;
    const res = await call('GET', '/billing/accounts');
    expect(res.statusCode).toBe(502);
    expect(errorBody(res)).toMatchObject({ code: 'billing_unavailable' });
    expect((await call('GET', '/billing/accounts')).statusCode).toBe(200);
  });

  it('removes the integration (then 404)', async () => {
    expect((await call('DELETE', '/billing-integration')).statusCode).toBe(204);
    expect((await call('DELETE', '/billing-integration')).statusCode).toBe(404);
    expect((await call('GET', '/billing-integration')).json().data.adapter).toBeNull();
  });
});
