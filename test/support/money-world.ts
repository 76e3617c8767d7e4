import { and, eq } from 'drizzle-orm';
import {
  billingInvoices,
  billingPayments,
  billingRefunds,
  billingSubscriptions,
} from '../../src/billing/builtin/tables.js';
import type { FaultController } from '../../src/billing/index.js';
import { creditEntries } from '../../src/modules/credits/tables.js';
import { orders } from '../../src/modules/orders/tables.js';
import { paymentSessions, refunds } from '../../src/modules/payments/tables.js';
import { subscriptions } from '../../src/modules/subscriptions/tables.js';
import { intents, reconcileIntents } from '../../src/unit-of-work/index.js';
import { bearer, createTestTenant, type TestApp, type TestTenant } from '../harness.js';
import { adminPost, perSeat } from './catalog-fixtures.js';

// The world of the model-based money test (test/intents/money-model.test.ts): one tenant on the built-in
// billing engine behind a fault-injecting wrapper, the calls the commands make, what the client
// was told, and the invariants that must hold once everything has settled.

/** How the next billing call that changes something fails: not at all, before it reaches the system, after it took effect (as a timeout), or slowly. */
export type Fault = 'none' | 'before' | 'after' | 'slow';
export const FAULTS: readonly Fault[] = ['none', 'none', 'none', 'before', 'after', 'slow'];

const MUTATING = [
  'createInvoice',
  'settleInvoice',
  'reversePayment',
  'voidInvoice',
  'closeInvoice',
  'provisionSubscription',
  'changeSubscription',
  'cancelSubscription',
  'renewSubscription',
  'refundPayment',
  'applyCredit',
];

export interface Sent {
  method: string;
  url: string;
  body: object | undefined;
  key: string | undefined;
}

export interface Answer {
  status: number;
  json: () => any;
}

export class MoneyWorld {
  tenant!: TestTenant;
  billingId!: string;
  orgId!: string;
  plans: { id: string; name: string }[] = [];
  itemId!: string;
  readonly sessions: string[] = [];
  readonly invoices: string[] = [];
  readonly subscriptions: string[] = [];
  readonly sent: Sent[] = [];
  /** Sessions a client was told are `success` (200 from complete). */
  readonly completed = new Set<string>();
  /** Subscriptions a client was told were created (201). */
  readonly created = new Set<string>();
  readonly serverErrors: string[] = [];
  /** What a command saw that breaks a promise made to the client (checked with the invariants). */
  readonly violations: string[] = [];

  constructor(
    readonly t: TestApp,
    readonly faults: FaultController,
  ) {}

  async setUp() {
    this.tenant = await createTestTenant(this.t.deps);
    const admin = this.tenant.keys.admin;
    await this.send('PUT', '/admin/billing-integration', { adapter: 'builtin' }, undefined, admin);
    await this.send('PUT', '/admin/payment-provider', { provider: 'sandbox' }, undefined, admin);
    this.billingId = (
      await this.send('POST', '/admin/billing/accounts', { name: 'Acme', currency: 'USD' }, undefined, admin)
    ).json().data.id;
    this.orgId = (
      await this.send('POST', '/accounts', { name: 'Acme', externalId: this.billingId })
    ).json().data.id;
    for (const [name, cents, rank] of [
      ['Basic', 1000, 1],
      ['Pro', 2500, 2],
      ['Max', 9000, 3],
    ] as const)
      this.plans.push(
        await adminPost(this.t, this.tenant, 'products', perSeat(name, cents, { family: 'money', rank })),
      );
    this.itemId = (
      await adminPost(this.t, this.tenant, 'products', {
        name: 'Setup',
        type: 'one_time',
        currency: 'USD',
        charges: [
          {
            name: 'Fee',
            chargeModel: 'flat_fee',
            tiers: [{ upTo: null, unitPriceCents: 0, flatPriceCents: 4500 }],
          },
        ],
      })
    ).id;
    // Something to act on from the first command: two subscriptions, two invoices being paid.
    for (const plan of this.plans.slice(0, 2)) {
      const sub = await this.send('POST', '/subscriptions', {
        productId: plan.id,
        quantity: 2,
        organizationId: this.orgId,
      });
      this.subscriptions.push(sub.json().data.id);
    }
    for (const cents of [2000, 3500]) {
      const invoice = (
        await this.send(
          'POST',
          `/admin/billing/accounts/${this.billingId}/invoices`,
          { lines: [{ description: 'x', unitAmountCents: cents }] },
          undefined,
          admin,
        )
      ).json().data;
      this.invoices.push(invoice.id);
      const pay = await this.send('POST', `/invoices/${invoice.id}/pay`, {
        accountId: this.billingId,
        amountCents: cents,
        currency: 'USD',
      });
      this.sessions.push(pay.json().data.id);
    }
  }

  /** One request, with `fault` on the next billing call that changes something. A 500 is a defect. */
  async send(
    method: string,
    url: string,
    body?: object,
    key?: string,
    apiKey?: string,
    fault: Fault = 'none',
  ): Promise<Answer> {
    return (await this.sendAll([{ method, url, body, key, apiKey }], fault))[0] as Answer;
  }

  /** Requests sent at once, with `fault` on the next billing call that changes something. */
  async sendAll(
    requests: { method: string; url: string; body?: object; key?: string; apiKey?: string }[],
    fault: Fault = 'none',
  ): Promise<Answer[]> {
    this.faults.reset();
    this.faults.only = MUTATING;
    if (fault === 'before') this.faults.failNext = 1;
    if (fault === 'after') this.faults.applyThenFailNext = 1;
    if (fault === 'slow') this.faults.latencyMs = 15;
    try {
      return await Promise.all(requests.map((r) => this.inject(r)));
    } finally {
      this.faults.reset();
    }
  }

  private async inject(r: { method: string; url: string; body?: object; key?: string; apiKey?: string }) {
    const res = await this.t.app.inject({
      method: r.method as 'POST',
      url: `/api/v1${r.url}`,
      headers: {
        ...bearer(r.apiKey ?? this.tenant.keys.commerce),
        ...(r.key ? { 'idempotency-key': r.key } : {}),
      },
      ...(r.body ? { payload: r.body } : {}),
    });
    if (res.statusCode >= 500 && res.statusCode !== 502)
      this.serverErrors.push(`${r.method} ${r.url} -> ${res.statusCode} ${res.body}`);
    if (r.key) this.sent.push({ method: r.method, url: r.url, body: r.body, key: r.key });
    return { status: res.statusCode, json: () => res.json() } as Answer;
  }

  /** Quiescence: the reconciler takes up every intent left pending, as its lease had run out. */
  async settle() {
    this.faults.reset();
    const later = new Date(this.t.deps.clock.now().getTime() + 3_600_000);
    for (let pass = 0; pass < 3; pass++) {
      const report = await reconcileIntents(this.t.deps, { now: later, tenantId: this.tenant.tenantId });
      if (report.examined === 0) break;
    }
  }

  /** Everything both systems hold for the tenant. */
  async state() {
    const db = this.t.deps.db;
    const tenantId = this.tenant.tenantId;
    return {
      sessions: await db.select().from(paymentSessions).where(eq(paymentSessions.tenantId, tenantId)),
      payments: await db.select().from(billingPayments).where(eq(billingPayments.tenantId, tenantId)),
      invoices: await db.select().from(billingInvoices).where(eq(billingInvoices.tenantId, tenantId)),
      billingSubs: await db
        .select()
        .from(billingSubscriptions)
        .where(eq(billingSubscriptions.tenantId, tenantId)),
      localSubs: await db.select().from(subscriptions).where(eq(subscriptions.tenantId, tenantId)),
      orders: await db.select().from(orders).where(eq(orders.tenantId, tenantId)),
      refunds: await db.select().from(refunds).where(eq(refunds.tenantId, tenantId)),
      billingRefunds: await db.select().from(billingRefunds).where(eq(billingRefunds.tenantId, tenantId)),
      credits: await db.select().from(creditEntries).where(eq(creditEntries.tenantId, tenantId)),
      openIntents: await db
        .select()
        .from(intents)
        .where(and(eq(intents.tenantId, tenantId), eq(intents.status, 'pending'))),
      attention: await db
        .select()
        .from(intents)
        .where(and(eq(intents.tenantId, tenantId), eq(intents.status, 'attention'))),
    };
  }

  /** Every invariant of "One write path"; the problems found, none when the two systems agree. */
  async problems(): Promise<string[]> {
    const s = await this.state();
    const out: string[] = [...this.serverErrors, ...this.violations];
    if (s.openIntents.length)
      out.push(`pending intents after reconciliation: ${s.openIntents.map((i) => i.operation).join(', ')}`);
    if (s.attention.length)
      out.push(
        `intents needing attention: ${s.attention.map((i) => `${i.operation}: ${i.lastError}`).join('; ')}`,
      );
    // Paid amount of every invoice = the successful sessions paying it, plus the credit applied.
    for (const invoice of s.invoices) {
      const paidBy = (method: string) =>
        s.payments
          .filter((p) => p.invoiceId === invoice.id && p.method === method)
          .reduce((sum, p) => sum + Number(p.amountCents), 0);
      const credited = paidBy('credit');
      const applied = s.credits
        .filter((e) => e.kind === 'application' && e.invoiceId === invoice.id)
        .reduce((sum, e) => sum - Number(e.amountCents), 0);
      if (credited !== applied)
        out.push(`invoice ${invoice.id}: credit ${credited} in billing, ${applied} in the ledger`);
      if (Number(invoice.balanceCents) < 0)
        out.push(`invoice ${invoice.id}: balance ${invoice.balanceCents} < 0`);
      const paid = paidBy('payment');
      const sessions = s.sessions
        .filter((x) => x.invoiceId === invoice.id && x.status === 'success' && !x.reversal)
        .reduce((sum, x) => sum + Number(x.amountCents), 0);
      if (paid !== sessions) out.push(`invoice ${invoice.id}: paid ${paid}, successful sessions ${sessions}`);
      if (
        Number(invoice.balanceCents) !== Number(invoice.amountCents) - paid - credited &&
        invoice.status !== 'void'
      )
        out.push(
          `invoice ${invoice.id}: balance ${invoice.balanceCents} != amount ${invoice.amountCents} - paid ${paid} - credit ${credited}`,
        );
    }
    // Refunds: never more than paid; what the billing system recorded is what succeeded here.
    for (const session of s.sessions) {
      const mine = s.refunds.filter((r) => r.paymentSessionId === session.id);
      const reserved = mine
        .filter((r) => r.status !== 'failed')
        .reduce((sum, r) => sum + Number(r.amountCents), 0);
      if (reserved !== Number(session.refundedCents))
        out.push(`session ${session.id}: refunded ${session.refundedCents}, refunds ${reserved}`);
      if (Number(session.refundedCents) > Number(session.amountCents))
        out.push(`session ${session.id}: refunded ${session.refundedCents} > paid ${session.amountCents}`);
      if (mine.some((r) => r.status === 'pending'))
        out.push(`session ${session.id}: a refund is still pending`);
      const recorded = s.billingRefunds
        .filter((r) => r.paymentReference === session.id)
        .reduce((sum, r) => sum + Number(r.amountCents), 0);
      const succeeded = mine
        .filter((r) => r.status === 'succeeded' && r.invoiceId)
        .reduce((sum, r) => sum + Number(r.amountCents), 0);
      if (recorded !== succeeded)
        out.push(`session ${session.id}: billing refunded ${recorded}, here ${succeeded}`);
    }
    // The credit ledger: its balance is the sum of its entries, never below zero, nothing pending,
    // and what the grants have left is that balance.
    const balance = s.credits.reduce((sum, e) => sum + Number(e.amountCents), 0);
    const left = s.credits
      .filter((e) => e.kind === 'grant')
      .reduce((sum, e) => sum + Number(e.remainingCents), 0);
    if (balance < 0) out.push(`credit balance ${balance} < 0`);
    if (left !== balance) out.push(`credit grants have ${left} left, the balance is ${balance}`);
    if (s.credits.some((e) => e.status === 'pending')) out.push('a credit application is still pending');
    // Every local subscription has exactly its billing subscription, alike.
    for (const local of s.localSubs.filter((x) => x.billingSubscriptionId)) {
      const billed = s.billingSubs.find((b) => b.id === local.billingSubscriptionId);
      if (!billed) {
        out.push(`subscription ${local.id}: billing subscription ${local.billingSubscriptionId} missing`);
        continue;
      }
      const same =
        billed.productId === local.productId &&
        billed.quantity === local.quantity &&
        Number(billed.priceCents) === Number(local.priceCents) &&
        (billed.status === 'cancelled') === (local.status === 'cancelled');
      if (!same)
        out.push(
          `subscription ${local.id}: local ${local.productId} x${local.quantity} ${local.priceCents} ${local.status}, billing ${billed.productId} x${billed.quantity} ${billed.priceCents} ${billed.status}`,
        );
    }
    // Nothing in the billing system without a local owner.
    const owned = new Set(s.localSubs.map((x) => x.billingSubscriptionId));
    for (const b of s.billingSubs)
      if (b.status !== 'cancelled' && !owned.has(b.id))
        out.push(`billing subscription ${b.id} has no local subscription`);
    const orderInvoices = new Set(s.orders.map((o) => o.invoiceId));
    for (const invoice of s.invoices) {
      if (invoice.status === 'void' || this.invoices.includes(invoice.id) || orderInvoices.has(invoice.id))
        continue;
      if (!invoice.subscriptionId || !owned.has(invoice.subscriptionId))
        out.push(`invoice ${invoice.id} (${invoice.amountCents}, ${invoice.status}) has no local owner`);
    }
    // Every success and creation the client was told of is there.
    for (const id of this.completed) {
      const session = s.sessions.find((x) => x.id === id);
      // `success` is terminal: a provider failure after it is a recorded reversal, not a status.
      if (session?.status !== 'success') out.push(`session ${id} was completed but is ${session?.status}`);
    }
    for (const id of this.created)
      if (!s.localSubs.some((x) => x.id === id)) out.push(`subscription ${id} was created but is gone`);
    return out;
  }
}
