import { and, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BuiltinBilling } from '../../src/billing/builtin/index.js';
import { type BillingAdapter, FaultController, withFaults } from '../../src/billing/index.js';
import { ManualClock } from '../../src/clock.js';
import { listEvents } from '../../src/events/outbox.js';
import { expireCredits } from '../../src/modules/credits/index.js';
import { creditEntries } from '../../src/modules/credits/tables.js';
import { auditLogs, reconcileIntents } from '../../src/unit-of-work/index.js';
import { bearer, createTestTenant, errorBody, startApp, type TestApp, type TestTenant } from '../harness.js';
import { api } from '../support/api.js';
import { linkedBillingAccount, noCreditOnIssue } from '../support/billing-fixtures.js';
import { adminPost } from '../support/catalog-fixtures.js';

// The credit ledger: grants, applications to invoices (explicit and on issue), expiry. The
// balance is always the sum of the entries and never below zero; an invoice's balance neither.

const hiding = (hidden: Set<string>) => (adapter: BillingAdapter) =>
  new Proxy(adapter, {
    get: (target, property, receiver) =>
      hidden.has(String(property)) ? undefined : Reflect.get(target, property, receiver),
  });

let t: TestApp;
const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
const faults = new FaultController();
const hidden = new Set<string>();
let shop: TestTenant;
let other: TestTenant;
let engine: BuiltinBilling;
let billingId: string;
let accountId: string;

beforeAll(async () => {
  t = await startApp({ clock, wrapBilling: (a) => withFaults(hiding(hidden)(a), faults) });
  other = await createTestTenant(t.deps);
});
afterAll(() => t.app.close());
beforeEach(async () => {
  clock.set(new Date('2026-03-01T10:00:00.000Z'));
  faults.reset();
  hidden.clear();
  shop = await createTestTenant(t.deps);
  ({ engine, billingId, orgId: accountId } = await linkedBillingAccount(t, shop, 'Acme'));
});

const post = (
  url: string,
  payload?: object,
  key = shop.keys.commerce,
  headers: Record<string, string> = {},
) => api(t, key).post(url, payload, { headers });
const get = (url: string, key = shop.keys.read) => api(t, key).get(url);
const grant = (amountCents: number, extra: object = {}) =>
  post(
    `/accounts/${accountId}/credits`,
    { amountCents, currency: 'USD', reason: 'goodwill', ...extra },
    shop.keys.admin,
  );
/** An invoice issued straight in the engine (no operation of ours: nothing applies credit to it). */
const invoice = async (cents: number) => {
  const r = await engine.createInvoice({
    accountId: billingId,
    currency: 'USD',
    lines: [{ description: 'x', quantity: 1, unitAmountCents: cents }],
    idempotencyKey: `inv-${Math.random()}`,
  });
  if (!r.ok) throw new Error('invoice');
  return r.value.id;
};
const ledger = async () => (await get(`/accounts/${accountId}/credits`)).json().data;
const balance = async () =>
  ((await ledger()).balances as { currency: string; balanceCents: number }[]).find(
    (b) => b.currency === 'USD',
  )?.balanceCents ?? 0;
const invoiceBalance = async (id: string) => {
  const r = await engine.getInvoice(id);
  if (!r.ok) throw new Error('invoice');
  return r.value;
};
const entries = () =>
  t.deps.db
    .select()
    .from(creditEntries)
    .where(and(eq(creditEntries.tenantId, shop.tenantId), eq(creditEntries.organizationId, accountId)));
const apply = (invoiceId: string, payload: object = {}, headers: Record<string, string> = {}) =>
  post(`/invoices/${invoiceId}/apply-credit`, payload, shop.keys.commerce, headers);

describe('credits: grants', () => {
  it('grants credit (admin): an entry, the balance, an event and an audit entry', async () => {
    const res = await grant(2500, { expiresAt: '2026-06-01T00:00:00Z' });
    expect(res.statusCode).toBe(201);
    const entry = res.json().data;
    expect(entry).toMatchObject({
      accountId,
      currency: 'USD',
      amountCents: 2500,
      kind: 'grant',
      status: 'posted',
      reason: 'goodwill',
      remainingCents: 2500,
      expiresAt: '2026-06-01T00:00:00.000Z',
      sourceType: 'admin',
    });
    const read = await ledger();
    expect(read).toEqual({
      accountId,
      balances: [{ currency: 'USD', balanceCents: 2500 }],
      entries: [entry],
    });
    const events = await listEvents(t.deps.db, shop.tenantId, 'credit.granted');
    expect(events.map((e) => (e.payload as { id: string }).id)).toEqual([entry.id]);
    const audit = await t.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, shop.tenantId), eq(auditLogs.resourceId, entry.id)));
    expect(audit.map((a) => a.action)).toEqual(['credit.grant']);
  });

  it('refuses bad grants, other tenants and the wrong scopes, writing nothing', async () => {
    const cases: [object, string, string][] = [
      [{ amountCents: 0 }, 'amountCents', 'minimum'],
      [{ amountCents: 2 ** 60 }, 'amountCents', 'maximum'],
      [{ amountCents: 100, currency: 'usd' }, 'currency', 'pattern'],
      [{ amountCents: 100, expiresAt: '2026-02-01T00:00:00Z' }, 'expiresAt', 'future'],
      [{ amountCents: 100, reason: '' }, 'reason', 'minLength'],
    ];
    for (const [body, field, rule] of cases) {
      const res = await post(
        `/accounts/${accountId}/credits`,
        { currency: 'USD', reason: 'r', ...body },
        shop.keys.admin,
      );
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorBody(res).details?.[0]).toMatchObject({ field, rule });
    }
    expect((await grant(100, {})).statusCode).toBe(201);
    expect(
      (await post(`/accounts/${accountId}/credits`, { amountCents: 1, currency: 'USD', reason: 'r' }))
        .statusCode,
    ).toBe(403);
    const foreign = await post(
      `/accounts/${accountId}/credits`,
      { amountCents: 1, currency: 'USD', reason: 'r' },
      other.keys.admin,
    );
    expect(foreign.statusCode).toBe(404);
    expect((await get(`/accounts/${accountId}/credits`, other.keys.read)).statusCode).toBe(404);
    expect((await get(`/accounts/${billingId}/credits`)).statusCode).toBe(400);
    expect((await get('/accounts/0190b000-0000-7000-8000-00000000dead/credits')).statusCode).toBe(404);
    // Credit that no invoice could take is not granted: an account without a billing link.
    for (const externalId of [null, 'crm-1']) {
      const unlinked = (await post('/accounts', { name: 'Unlinked', externalId })).json().data.id;
      const refused = await post(
        `/accounts/${unlinked}/credits`,
        { amountCents: 100, currency: 'USD', reason: 'r' },
        shop.keys.admin,
      );
      expect(refused.statusCode).toBe(409);
      expect(errorBody(refused)).toMatchObject({
        code: 'conflict',
        error: expect.stringContaining(unlinked),
      });
      expect((await get(`/accounts/${unlinked}/credits`)).json().data.entries).toEqual([]);
    }
    expect((await listEvents(t.deps.db, shop.tenantId, 'credit.granted')).length).toBe(1);
    expect((await entries()).map((e) => e.amountCents)).toEqual([100]);
  });

  it('applies credit to an invoice explicitly: as much as both allow, then invoice.paid', async () => {
    const inv = await invoice(5000);
    await grant(2000);
    const first = await apply(inv);
    expect(first.statusCode).toBe(200);
    expect(first.json().data.application).toMatchObject({
      kind: 'application',
      status: 'posted',
      amountCents: -2000,
      invoiceId: inv,
    });
    expect(first.json().data.invoice).toMatchObject({ id: inv, balanceCents: 3000, status: 'open' });
    expect(await balance()).toBe(0);
    const none = await apply(inv);
    expect(none.statusCode).toBe(409);
    expect(errorBody(none).code).toBe('no_credit_available');

    await grant(10_000);
    const over = await apply(inv, { amountCents: 3001 });
    expect(over.statusCode).toBe(400);
    expect(errorBody(over).details?.[0]).toMatchObject({ field: 'amountCents', rule: 'maximum' });
    const tooMuch = await apply(inv, { amountCents: 10_001 });
    expect(errorBody(tooMuch).code).toBe('no_credit_available');
    const rest = await apply(inv);
    expect(rest.json().data.invoice).toMatchObject({ balanceCents: 0, status: 'paid' });
    expect(await balance()).toBe(7000);
    const paid = await apply(inv);
    expect(paid.statusCode).toBe(409);
    expect(errorBody(paid).code).toBe('invoice_not_open');
    const applied = await listEvents(t.deps.db, shop.tenantId, 'credit.applied');
    expect(applied).toHaveLength(2);
    const paidEvents = await listEvents(t.deps.db, shop.tenantId, 'invoice.paid');
    expect(paidEvents.map((e) => (e.payload as { resourceId: string }).resourceId)).toEqual([inv]);
    // The ledger's balance is the sum of its entries.
    expect((await entries()).reduce((s, e) => s + e.amountCents, 0)).toBe(7000);
    expect((await apply(inv, {}, {}).then(() => apply('in_unknown0000000000000'))).statusCode).toBe(404);
  });
});

describe('credits: on issue, expiry and paging', () => {
  it('applies credit when an invoice is issued, unless the tenant turned it off', async () => {
    await grant(1500);
    const issue = (cents: number) =>
      post(
        `/admin/billing/accounts/${billingId}/invoices`,
        { lines: [{ description: 'Pro', quantity: 1, unitAmountCents: cents }] },
        shop.keys.admin,
      );
    const issued = await issue(4000);
    expect(issued.statusCode, issued.body).toBe(201);
    const id = issued.json().data.id ?? issued.json().data.invoice?.id;
    expect((await invoiceBalance(id)).balanceCents).toBe(2500);
    expect(await balance()).toBe(0);

    await grant(1000);
    const off = await noCreditOnIssue(t, shop);
    expect(off.json().data.autoApplyCredits).toBe(false);
    const untouched = await issue(4000);
    const untouchedId = untouched.json().data.id ?? untouched.json().data.invoice?.id;
    expect((await invoiceBalance(untouchedId)).balanceCents).toBe(4000);
    expect(await balance()).toBe(1000);
  });

  it('expires what remains of a grant at its expiry, once', async () => {
    await grant(3000, { expiresAt: '2026-03-10T00:00:00Z' });
    await grant(500);
    const inv = await invoice(1000);
    // Applications spend the grant that expires first.
    await apply(inv);
    clock.set(new Date('2026-03-09T00:00:00Z'));
    expect(await expireCredits(t.deps, { tenantId: shop.tenantId })).toBe(0);
    clock.set(new Date('2026-03-10T00:00:01Z'));
    expect(await expireCredits(t.deps, { tenantId: shop.tenantId })).toBe(1);
    expect(await expireCredits(t.deps, { tenantId: shop.tenantId })).toBe(0);
    expect(await balance()).toBe(500);
    const expiry = (await ledger()).entries.find((e: { kind: string }) => e.kind === 'expiry');
    expect(expiry).toMatchObject({ amountCents: -2000, sourceType: 'credit_entry' });
    const events = await listEvents(t.deps.db, shop.tenantId, 'credit.expired');
    expect(events).toHaveLength(1);
  });

  it('an expired grant counts nowhere from expiresAt on, before any sweep; the sweep only records it', async () => {
    const expiresAt = new Date('2026-03-05T00:00:00.000Z');
    const grantId = (await grant(1000, { expiresAt: expiresAt.toISOString() })).json().data.id;
    const issue = async (cents: number) => {
      const res = await post(
        `/admin/billing/accounts/${billingId}/invoices`,
        { lines: [{ description: 'Pro', quantity: 1, unitAmountCents: cents }] },
        shop.keys.admin,
      );
      expect(res.statusCode, res.body).toBe(201);
      return (res.json().data.id ?? res.json().data.invoice?.id) as string;
    };

    // 1 ms before expiresAt the grant counts: balance, credit on issue, apply-credit.
    clock.set(new Date(expiresAt.getTime() - 1));
    expect(await balance()).toBe(1000);
    expect((await invoiceBalance(await issue(400))).balanceCents).toBe(0);
    expect(await balance()).toBe(600);
    const paid = await apply(await invoice(250));
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().data.application.amountCents).toBe(-250);
    expect(await balance()).toBe(350);

    // At exactly expiresAt it counts nowhere, though no sweep has run.
    clock.set(expiresAt);
    const before = (await entries()).length;
    expect(await balance()).toBe(0);
    expect((await ledger()).balances).toEqual([{ currency: 'USD', balanceCents: 0 }]);
    const refused = await apply(await invoice(250));
    expect(refused.statusCode).toBe(409);
    expect(errorBody(refused)).toMatchObject({ code: 'no_credit_available' });
    const named = await apply(await invoice(250), { amountCents: 1 });
    expect(errorBody(named).code).toBe('no_credit_available');
    expect((await invoiceBalance(await issue(400))).balanceCents).toBe(400);
    expect((await entries()).length).toBe(before);
    expect(await listEvents(t.deps.db, shop.tenantId, 'credit.applied')).toHaveLength(2);

    // The sweep records the expiry once; the balance is the same before and after it.
    expect(await expireCredits(t.deps, { tenantId: shop.tenantId })).toBe(1);
    expect(await expireCredits(t.deps, { tenantId: shop.tenantId })).toBe(0);
    expect(await balance()).toBe(0);
    const expired = await listEvents(t.deps.db, shop.tenantId, 'credit.expired');
    expect(expired.map((e) => e.payload)).toEqual([
      expect.objectContaining({ kind: 'expiry', amountCents: -350, grantId }),
    ]);
  });

  it('pages the entries by cursor', async () => {
    for (const cents of [1, 2, 3]) await grant(cents);
    const first = (await get(`/accounts/${accountId}/credits?limit=2`)).json();
    expect(first.data.entries.map((e: { amountCents: number }) => e.amountCents)).toEqual([3, 2]);
    expect(first.data.balances).toEqual([{ currency: 'USD', balanceCents: 6 }]);
    const next = (await get(`/accounts/${accountId}/credits?limit=2&cursor=${first.meta.nextCursor}`)).json();
    expect(next.data.entries.map((e: { amountCents: number }) => e.amountCents)).toEqual([1]);
    expect(next.meta.nextCursor).toBeNull();
  });
});

describe('credits: concurrency, outages and capabilities', () => {
  it('parallel applications never overdraw the balance nor an invoice', async () => {
    await grant(3000);
    const invoices = await Promise.all([invoice(2000), invoice(2000), invoice(2000)]);
    const answers = await Promise.all([...invoices, invoices[0] as string].map((id) => apply(id)));
    for (const a of answers) expect([200, 409]).toContain(a.statusCode);
    const applied = answers
      .filter((a) => a.statusCode === 200)
      .reduce((s, a) => s - a.json().data.application.amountCents, 0);
    expect(applied).toBe(3000);
    expect(await balance()).toBe(0);
    for (const id of invoices) expect((await invoiceBalance(id)).balanceCents).toBeGreaterThanOrEqual(0);
    const owed = (await Promise.all(invoices.map(invoiceBalance))).reduce((s, i) => s + i.balanceCents, 0);
    expect(owed).toBe(6000 - 3000);
  });

  it('property: the balance is the sum of the entries, never negative, and invoices never go below zero', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ op: fc.constant('grant' as const), cents: fc.integer({ min: 1, max: 5000 }) }),
            fc.record({
              op: fc.constant('apply' as const),
              cents: fc.integer({ min: 1, max: 5000 }),
              all: fc.boolean(),
            }),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        async (commands) => {
          const fresh = await createTestTenant(t.deps);
          shop = fresh;
          await t.app.inject({
            method: 'PUT',
            url: '/api/v1/admin/billing-integration',
            headers: bearer(shop.keys.admin),
            payload: { adapter: 'builtin' },
          });
          engine = new BuiltinBilling(t.deps.db, clock, shop.tenantId);
          billingId = (await engine.createAccount({ name: 'P', currency: 'USD' })).id;
          accountId = (await post('/accounts', { name: 'P', externalId: billingId })).json().data.id;
          let model = 0;
          for (const c of commands) {
            if (c.op === 'grant') {
              expect((await grant(c.cents)).statusCode).toBe(201);
              model += c.cents;
              continue;
            }
            const inv = await invoice(c.cents);
            const res = await apply(inv, c.all ? {} : { amountCents: Math.min(c.cents, Math.max(model, 1)) });
            const expected = c.all ? Math.min(model, c.cents) : Math.min(c.cents, Math.max(model, 1));
            if (model === 0 || (!c.all && expected > model)) {
              expect(res.statusCode).toBe(409);
              continue;
            }
            expect(res.statusCode, res.body).toBe(200);
            expect(res.json().data.application.amountCents).toBe(-expected);
            expect(res.json().data.invoice.balanceCents).toBe(c.cents - expected);
            model -= expected;
          }
          const rows = await entries();
          expect(rows.reduce((s, e) => s + e.amountCents, 0)).toBe(model);
          expect(await balance()).toBe(model);
          expect(model).toBeGreaterThanOrEqual(0);
          const grantsLeft = rows.filter((e) => e.kind === 'grant').reduce((s, e) => s + e.remainingCents, 0);
          expect(grantsLeft).toBe(model);
        },
      ),
      { numRuns: 10 },
    );
  });

  it('a billing outage before the call leaves nothing; one after it is finished by the reconciler', async () => {
    const inv = await invoice(1000);
    await grant(600);
    faults.only = ['applyCredit'];
    faults.failNext = 1;
    expect((await apply(inv)).statusCode).toBe(502);
    expect((await entries()).map((e) => e.kind)).toEqual(['grant']);
    expect(await balance()).toBe(600);

    faults.applyThenFailNext = 1;
    expect((await apply(inv)).statusCode).toBe(502);
    expect((await ledger()).entries[0]).toMatchObject({
      kind: 'application',
      status: 'pending',
      amountCents: -600,
    });
    expect(await balance()).toBe(0);
    clock.set(new Date('2026-03-01T10:05:00.000Z'));
    const report = await reconcileIntents(t.deps, { tenantId: shop.tenantId });
    expect(report.completed).toBe(1);
    expect((await ledger()).entries[0]).toMatchObject({ kind: 'application', status: 'posted' });
    expect((await invoiceBalance(inv)).balanceCents).toBe(400);
  });

  it('an application in flight counts against its invoice: the next one asks only for what is left', async () => {
    const inv = await invoice(2000);
    await grant(3000);
    faults.only = ['applyCredit'];
    faults.loseNext = 1;
    expect((await apply(inv, { amountCents: 500 })).statusCode).toBe(502);
    // The billing system never saw it; it is pending, and the invoice still says 2000.
    expect((await invoiceBalance(inv)).balanceCents).toBe(2000);
    const asked = await apply(inv, { amountCents: 1600 });
    expect(asked.statusCode).toBe(409);
    expect(errorBody(asked)).toMatchObject({ code: 'conflict' });
    expect(errorBody(asked).error).toContain('can take 1500 more');
    const rest = await apply(inv);
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.json().data.application.amountCents).toBe(-1500);
    clock.set(new Date('2026-03-01T10:05:00.000Z'));
    // The lost call never took effect: the reconciler gives its 500 back, and the invoice owes it.
    expect(await reconcileIntents(t.deps, { tenantId: shop.tenantId })).toMatchObject({ abandoned: 1 });
    expect((await invoiceBalance(inv)).balanceCents).toBe(500);
    expect(await balance()).toBe(1500);
  });

  it('credit on issue is reserved with the order: an application lost on its way is made by the reconciler', async () => {
    await grant(1500);
    const workshop = await adminPost(t, shop, 'products', {
      name: 'Workshop',
      type: 'one_time',
      currency: 'USD',
      charges: [{ name: 'Seat', chargeModel: 'per_unit', tiers: [{ upTo: null, unitPriceCents: 4000 }] }],
    });
    faults.only = ['applyCredit'];
    faults.loseNext = 1;
    const order = await post('/orders', {
      organizationId: accountId,
      items: [{ productId: workshop.id, quantity: 1 }],
    });
    expect(order.statusCode, order.body).toBe(201);
    const invoiceId = order.json().data.invoiceId as string;
    // The order stands; its credit is reserved, the call's outcome unknown.
    expect((await invoiceBalance(invoiceId)).balanceCents).toBe(4000);
    expect((await ledger()).entries[0]).toMatchObject({
      kind: 'application',
      status: 'pending',
      amountCents: -1500,
    });
    expect(await balance()).toBe(0);
    clock.set(new Date('2026-03-01T10:05:00.000Z'));
    const report = await reconcileIntents(t.deps, { tenantId: shop.tenantId });
    expect(report).toMatchObject({ completed: 1, abandoned: 0 });
    expect((await ledger()).entries[0]).toMatchObject({
      kind: 'application',
      status: 'posted',
      amountCents: -1500,
    });
    expect((await invoiceBalance(invoiceId)).balanceCents).toBe(2500);
    expect(await balance()).toBe(0);
    expect(await listEvents(t.deps.db, shop.tenantId, 'credit.applied')).toHaveLength(1);
  });

  it('answers 501 capability_unavailable when the billing system has no credits, writing nothing', async () => {
    const inv = await invoice(1000);
    await grant(600);
    hidden.add('applyCredit');
    const res = await apply(inv);
    expect(res.statusCode).toBe(501);
    expect(errorBody(res)).toMatchObject({ code: 'capability_unavailable' });
    expect(errorBody(res).error).toContain("'credits'");
    expect((await entries()).map((e) => e.kind)).toEqual(['grant']);
    const manifest = (await get('/manifest')).json().data;
    expect(manifest.capabilities.billing).toEqual({
      adapter: 'builtin',
      capabilities: ['refunds', 'passthroughQuotes'],
    });
  });
});
