import { desc, eq, inArray, sql } from 'drizzle-orm';
import type { Clock } from '../../clock.js';
import type { Db, Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import {
  type BillingAccount,
  type BillingAdapter,
  type BillingContact,
  type BillingPaymentMethod,
  type BillingResult,
  type BillingSubscription,
  type CancelSubscriptionInput,
  type ChangeSubscriptionInput,
  type CreateInvoiceInput,
  fail,
  type Invoice,
  type InvoiceLineInput,
  ok,
  type ProvisionSubscriptionInput,
  type Quote,
  type QuoteLineInput,
  type RenewSubscriptionInput,
  type SettlementInput,
  type SubscriptionChange,
} from '../adapter.js';
import { ACCOUNT_ID, addDays, builtinId, INVOICE_ID, isoDate } from './ids.js';
import {
  billingAccounts,
  billingInvoiceLines,
  billingInvoices,
  billingOperations,
  billingPaymentMethods,
  billingPayments,
  billingSubscriptions,
} from './tables.js';

export interface BuiltinConfig {
  /** Unit price of passthrough charges by charge id, minor units (used by quoteCart). */
  passthroughRates?: Record<string, number>;
  /** Unit price of passthrough charges without a rate; without it such lines cannot be quoted. */
  defaultPassthroughUnitCents?: number;
  /** When set, invoices get `hostedInvoiceUrl` = base + '/' + invoice id. */
  hostedInvoiceBaseUrl?: string;
  /** Days from invoice date to due date (default 30). */
  paymentTermsDays?: number;
}

type InvoiceRow = typeof billingInvoices.$inferSelect;
type SubscriptionRow = typeof billingSubscriptions.$inferSelect;

const DEFAULT_TERMS_DAYS = 30;

/**
 * The built-in billing engine: a small but real billing system in its own tables (accounts,
 * invoices with lines, payments, subscriptions, payment methods), reached through the
 * BillingAdapter interface like any external one. Each call runs in its own transaction on the
 * engine's connection, never inside the API's transaction, as an external system would.
 */
export class BuiltinBilling implements BillingAdapter {
  readonly name = 'builtin';

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly tenantId: string,
    private readonly config: BuiltinConfig = {},
  ) {}

  isAccountId(id: string): boolean {
    return ACCOUNT_ID.test(id);
  }

  // ---- accounts -------------------------------------------------------------------------

  /** Operator: opens a billing account (`ba_...`, number `A-000001`...); once per idempotency key. */
  async createAccount(
    input: { name: string; currency: string; contacts?: BillingContact[] },
    idempotencyKey: string = builtinId('bp_'),
  ): Promise<BillingAccount> {
    const result = await this.once(idempotencyKey, async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`billing-accounts:${this.tenantId}`}))`);
      const [{ n } = { n: 0 }] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(billingAccounts)
        .where(tenantWhere(billingAccounts, this.tenantId));
      const row = {
        tenantId: this.tenantId,
        id: builtinId('ba_'),
        accountNumber: `A-${String(n + 1).padStart(6, '0')}`,
        name: input.name,
        currency: input.currency,
        contacts: input.contacts ?? [],
        createdAt: this.clock.now(),
      };
      await tx.insert(billingAccounts).values(row);
      return ok(this.presentAccount(row, 0));
    });
    return (result as { ok: true; value: BillingAccount }).value;
  }

  async listAccounts(): Promise<BillingAccount[]> {
    const rows = await this.db
      .select()
      .from(billingAccounts)
      .where(tenantWhere(billingAccounts, this.tenantId))
      .orderBy(desc(billingAccounts.createdAt));
    const balances = await this.openBalances(
      this.db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => this.presentAccount(r, balances.get(r.id) ?? 0));
  }

  async getAccount(accountId: string): Promise<BillingResult<BillingAccount>> {
    const row = await this.accountRow(this.db, accountId);
    if (!row) return fail('not_found', `billing account ${accountId} not found`);
    const balances = await this.openBalances(this.db, [row.id]);
    return ok(this.presentAccount(row, balances.get(row.id) ?? 0));
  }

  private async accountRow(db: Queryable, accountId: string) {
    if (!this.isAccountId(accountId)) return undefined;
    const [row] = await db
      .select()
      .from(billingAccounts)
      .where(tenantWhere(billingAccounts, this.tenantId, eq(billingAccounts.id, accountId)));
    return row;
  }

  private async openBalances(db: Queryable, accountIds: string[]): Promise<Map<string, number>> {
    if (accountIds.length === 0) return new Map();
    const rows = await db
      .select({
        accountId: billingInvoices.accountId,
        balance: sql<string>`sum(${billingInvoices.balanceCents})`,
      })
      .from(billingInvoices)
      .where(
        tenantWhere(
          billingInvoices,
          this.tenantId,
          inArray(billingInvoices.accountId, accountIds),
          eq(billingInvoices.status, 'open'),
        ),
      )
      .groupBy(billingInvoices.accountId);
    return new Map(rows.map((r) => [r.accountId, Number(r.balance)]));
  }

  private presentAccount(row: typeof billingAccounts.$inferSelect, balanceCents: number): BillingAccount {
    return {
      id: row.id,
      accountNumber: row.accountNumber,
      name: row.name,
      currency: row.currency,
      balanceCents,
      contacts: row.contacts,
    };
  }

  // ---- invoices -------------------------------------------------------------------------

  async listInvoices(accountId: string): Promise<BillingResult<Invoice[]>> {
    if (!(await this.accountRow(this.db, accountId)))
      return fail('not_found', `billing account ${accountId} not found`);
    const rows = await this.db
      .select()
      .from(billingInvoices)
      .where(tenantWhere(billingInvoices, this.tenantId, eq(billingInvoices.accountId, accountId)))
      .orderBy(desc(billingInvoices.createdAt), desc(billingInvoices.invoiceNumber));
    return ok(await this.presentInvoices(this.db, rows));
  }

  async getInvoice(invoiceId: string): Promise<BillingResult<Invoice>> {
    const row = INVOICE_ID.test(invoiceId) ? await this.invoiceRow(this.db, invoiceId) : undefined;
    if (!row) return fail('not_found', `invoice ${invoiceId} not found`);
    const [invoice] = await this.presentInvoices(this.db, [row]);
    return ok(invoice as Invoice);
  }

  private async invoiceRow(db: Queryable, invoiceId: string, forUpdate = false) {
    const query = db
      .select()
      .from(billingInvoices)
      .where(tenantWhere(billingInvoices, this.tenantId, eq(billingInvoices.id, invoiceId)));
    const [row] = forUpdate ? await query.for('update') : await query;
    return row;
  }

  private async presentInvoices(db: Queryable, rows: InvoiceRow[]): Promise<Invoice[]> {
    if (rows.length === 0) return [];
    const lines = await db
      .select()
      .from(billingInvoiceLines)
      .where(
        tenantWhere(
          billingInvoiceLines,
          this.tenantId,
          inArray(
            billingInvoiceLines.invoiceId,
            rows.map((r) => r.id),
          ),
        ),
      )
      .orderBy(billingInvoiceLines.position);
    return rows.map((r) => ({
      id: r.id,
      accountId: r.accountId,
      invoiceNumber: r.invoiceNumber,
      invoiceDate: r.invoiceDate,
      dueDate: r.dueDate,
      currency: r.currency,
      amountCents: r.amountCents,
      balanceCents: r.balanceCents,
      status: r.status,
      hostedInvoiceUrl: this.config.hostedInvoiceBaseUrl
        ? `${this.config.hostedInvoiceBaseUrl.replace(/\/$/, '')}/${r.id}`
        : null,
      lines: lines
        .filter((l) => l.invoiceId === r.id)
        .map((l) => ({
          description: l.description,
          quantity: l.quantity,
          unitAmountCents: l.unitAmountCents,
          amountCents: l.amountCents,
        })),
    }));
  }

  async createInvoice(input: CreateInvoiceInput): Promise<BillingResult<Invoice>> {
    return this.db.transaction((tx) => this.issueInvoice(tx, input));
  }

  /** Issues an invoice in `tx`; a repeated idempotency key returns the first invoice unchanged. */
  private async issueInvoice(tx: Queryable, input: CreateInvoiceInput): Promise<BillingResult<Invoice>> {
    const [existing] = await tx
      .select()
      .from(billingInvoices)
      .where(
        tenantWhere(billingInvoices, this.tenantId, eq(billingInvoices.idempotencyKey, input.idempotencyKey)),
      );
    if (existing) return ok((await this.presentInvoices(tx, [existing]))[0] as Invoice);
    const account = await this.accountRow(tx, input.accountId);
    if (!account) return fail('not_found', `billing account ${input.accountId} not found`);
    if (input.currency !== account.currency) {
      return fail(
        'invalid',
        `currency ${input.currency} differs from the account's ${account.currency}`,
        'currency',
      );
    }
    const problem = checkLines(input.lines);
    if (problem) return problem;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`billing-invoices:${this.tenantId}`}))`);
    const [{ n } = { n: 0 }] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(billingInvoices)
      .where(tenantWhere(billingInvoices, this.tenantId));
    const now = this.clock.now();
    const invoiceDate = isoDate(now);
    const amountCents = input.lines.reduce((sum, l) => sum + l.quantity * l.unitAmountCents, 0);
    const row: InvoiceRow = {
      tenantId: this.tenantId,
      id: builtinId('in_'),
      accountId: account.id,
      invoiceNumber: `INV-${String(n + 1).padStart(6, '0')}`,
      invoiceDate,
      dueDate: input.dueDate ?? addDays(invoiceDate, this.config.paymentTermsDays ?? DEFAULT_TERMS_DAYS),
      currency: input.currency,
      amountCents,
      balanceCents: amountCents,
      // A zero invoice (fully credited) is paid on issue.
      status: amountCents === 0 ? 'paid' : 'open',
      idempotencyKey: input.idempotencyKey,
      createdAt: now,
      updatedAt: now,
    };
    await tx.insert(billingInvoices).values(row);
    await tx.insert(billingInvoiceLines).values(
      input.lines.map((l, position) => ({
        tenantId: this.tenantId,
        invoiceId: row.id,
        position,
        description: l.description,
        quantity: l.quantity,
        unitAmountCents: l.unitAmountCents,
        amountCents: l.quantity * l.unitAmountCents,
      })),
    );
    return ok((await this.presentInvoices(tx, [row]))[0] as Invoice);
  }

  async settleInvoice(invoiceId: string, payment: SettlementInput): Promise<BillingResult<Invoice>> {
    return this.db.transaction(async (tx) => {
      const row = INVOICE_ID.test(invoiceId) ? await this.invoiceRow(tx, invoiceId, true) : undefined;
      if (!row) return fail('not_found', `invoice ${invoiceId} not found`);
      const [applied] = await tx
        .select({ id: billingPayments.id })
        .from(billingPayments)
        .where(
          tenantWhere(
            billingPayments,
            this.tenantId,
            eq(billingPayments.idempotencyKey, payment.idempotencyKey),
          ),
        );
      if (applied) return ok((await this.presentInvoices(tx, [row]))[0] as Invoice);
      if (row.status !== 'open') return fail('conflict', `invoice ${invoiceId} is ${row.status}, not open`);
      if (payment.currency !== row.currency) {
        return fail(
          'invalid',
          `currency ${payment.currency} differs from the invoice's ${row.currency}`,
          'currency',
        );
      }
      if (!Number.isInteger(payment.amountCents) || payment.amountCents <= 0) {
        return fail('invalid', 'amountCents must be a positive integer', 'amountCents');
      }
      if (payment.amountCents > row.balanceCents) {
        return fail(
          'invalid',
          `amountCents ${payment.amountCents} exceeds the invoice balance ${row.balanceCents}`,
          'amountCents',
        );
      }
      const now = this.clock.now();
      await tx.insert(billingPayments).values({
        tenantId: this.tenantId,
        id: builtinId('bp_'),
        invoiceId,
        amountCents: payment.amountCents,
        currency: payment.currency,
        paymentReference: payment.paymentReference,
        idempotencyKey: payment.idempotencyKey,
        createdAt: now,
      });
      const balanceCents = row.balanceCents - payment.amountCents;
      const status = balanceCents === 0 ? 'paid' : 'open';
      await tx
        .update(billingInvoices)
        .set({ balanceCents, status, updatedAt: now })
        .where(tenantWhere(billingInvoices, this.tenantId, eq(billingInvoices.id, invoiceId)));
      return ok(
        (await this.presentInvoices(tx, [{ ...row, balanceCents, status, updatedAt: now }]))[0] as Invoice,
      );
    });
  }

  /** Operator: voids or writes off an open invoice (again: no change). */
  async closeInvoice(invoiceId: string, status: 'void' | 'uncollectible'): Promise<BillingResult<Invoice>> {
    return this.db.transaction(async (tx) => {
      const row = INVOICE_ID.test(invoiceId) ? await this.invoiceRow(tx, invoiceId, true) : undefined;
      if (!row) return fail('not_found', `invoice ${invoiceId} not found`);
      // Closing it the same way again changes nothing (a retried request gets the same answer).
      if (row.status === status) return ok((await this.presentInvoices(tx, [row]))[0] as Invoice);
      if (row.status !== 'open') return fail('conflict', `invoice ${invoiceId} is ${row.status}, not open`);
      const now = this.clock.now();
      await tx
        .update(billingInvoices)
        .set({ status, updatedAt: now })
        .where(tenantWhere(billingInvoices, this.tenantId, eq(billingInvoices.id, invoiceId)));
      return ok((await this.presentInvoices(tx, [{ ...row, status, updatedAt: now }]))[0] as Invoice);
    });
  }

  // ---- subscriptions ----------------------------------------------------------------------

  async listSubscriptions(accountId: string): Promise<BillingResult<BillingSubscription[]>> {
    if (!(await this.accountRow(this.db, accountId)))
      return fail('not_found', `billing account ${accountId} not found`);
    const rows = await this.db
      .select()
      .from(billingSubscriptions)
      .where(tenantWhere(billingSubscriptions, this.tenantId, eq(billingSubscriptions.accountId, accountId)))
      .orderBy(desc(billingSubscriptions.createdAt));
    return ok(rows.map(presentSubscription));
  }

  async provisionSubscription(input: ProvisionSubscriptionInput): Promise<BillingResult<SubscriptionChange>> {
    return this.once(input.idempotencyKey, async (tx) => {
      const account = await this.accountRow(tx, input.accountId);
      if (!account) return fail('not_found', `billing account ${input.accountId} not found`);
      if (input.currency !== account.currency) {
        return fail(
          'invalid',
          `currency ${input.currency} differs from the account's ${account.currency}`,
          'currency',
        );
      }
      const now = this.clock.now();
      const row: SubscriptionRow = {
        tenantId: this.tenantId,
        id: builtinId('bs_'),
        accountId: account.id,
        productId: input.productId,
        productName: input.productName,
        quantity: input.quantity,
        priceCents: input.priceCents,
        currency: input.currency,
        billingInterval: input.billingInterval,
        status: 'active',
        currentPeriodStart: new Date(input.currentPeriodStart),
        currentPeriodEnd: new Date(input.currentPeriodEnd),
        creditCents: 0,
        idempotencyKey: input.idempotencyKey,
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(billingSubscriptions).values(row);
      const invoice = input.invoiceFirstPeriod
        ? await this.periodInvoice(tx, row, `${input.idempotencyKey}:invoice`)
        : null;
      if (invoice && !invoice.ok) return invoice;
      return ok({ subscription: presentSubscription(row), invoice: invoice?.value ?? null });
    });
  }

  async changeSubscription(input: ChangeSubscriptionInput): Promise<BillingResult<SubscriptionChange>> {
    return this.once(input.idempotencyKey, async (tx) => {
      const row = await this.subscriptionRow(tx, input.subscriptionId);
      if (!row) return fail('not_found', `subscription ${input.subscriptionId} not found`);
      if (row.status === 'cancelled') return fail('conflict', `subscription ${row.id} is cancelled`);
      const next: SubscriptionRow = {
        ...row,
        productId: input.productId ?? row.productId,
        productName: input.productName ?? row.productName,
        quantity: input.quantity ?? row.quantity,
        priceCents: input.priceCents ?? row.priceCents,
        creditCents: row.creditCents + (input.creditCents ?? 0),
        updatedAt: this.clock.now(),
      };
      await this.saveSubscription(tx, next);
      let invoice: Invoice | null = null;
      if ((input.chargeCents ?? 0) > 0) {
        const issued = await this.issueInvoice(tx, {
          accountId: row.accountId,
          currency: row.currency,
          lines: [
            {
              description: `Plan change: ${next.productName} (prorated)`,
              quantity: 1,
              unitAmountCents: input.chargeCents ?? 0,
            },
          ],
          idempotencyKey: `${input.idempotencyKey}:invoice`,
        });
        if (!issued.ok) return issued;
        invoice = issued.value;
      }
      return ok({ subscription: presentSubscription(next), invoice });
    });
  }

  async cancelSubscription(input: CancelSubscriptionInput): Promise<BillingResult<SubscriptionChange>> {
    return this.once(input.idempotencyKey, async (tx) => {
      const row = await this.subscriptionRow(tx, input.subscriptionId);
      if (!row) return fail('not_found', `subscription ${input.subscriptionId} not found`);
      if (row.status === 'cancelled') return fail('conflict', `subscription ${row.id} is already cancelled`);
      const next: SubscriptionRow = {
        ...row,
        status: input.timing === 'immediate' ? 'cancelled' : 'pending_cancellation',
        updatedAt: this.clock.now(),
      };
      await this.saveSubscription(tx, next);
      return ok({ subscription: presentSubscription(next), invoice: null });
    });
  }

  async renewSubscription(input: RenewSubscriptionInput): Promise<BillingResult<SubscriptionChange>> {
    return this.once(input.idempotencyKey, async (tx) => {
      const row = await this.subscriptionRow(tx, input.subscriptionId);
      if (!row) return fail('not_found', `subscription ${input.subscriptionId} not found`);
      if (row.status !== 'active')
        return fail('conflict', `subscription ${row.id} is ${row.status}, not active`);
      const next: SubscriptionRow = {
        ...row,
        currentPeriodStart: new Date(input.currentPeriodStart),
        currentPeriodEnd: new Date(input.currentPeriodEnd),
        creditCents: 0,
        updatedAt: this.clock.now(),
      };
      await this.saveSubscription(tx, next);
      const invoice = await this.periodInvoice(
        tx,
        { ...next, creditCents: row.creditCents },
        `${input.idempotencyKey}:invoice`,
      );
      if (!invoice.ok) return invoice;
      return ok({ subscription: presentSubscription(next), invoice: invoice.value });
    });
  }

  private async subscriptionRow(tx: Queryable, id: string) {
    const [row] = await tx
      .select()
      .from(billingSubscriptions)
      .where(tenantWhere(billingSubscriptions, this.tenantId, eq(billingSubscriptions.id, id)))
      .for('update');
    return row;
  }

  private async saveSubscription(tx: Queryable, row: SubscriptionRow) {
    const { tenantId: _t, id, ...fields } = row;
    await tx
      .update(billingSubscriptions)
      .set(fields)
      .where(tenantWhere(billingSubscriptions, this.tenantId, eq(billingSubscriptions.id, id)));
  }

  /** The invoice for one period: the price, less any credit carried from downgrades. */
  private periodInvoice(tx: Queryable, row: SubscriptionRow, idempotencyKey: string) {
    const credit = Math.min(row.creditCents, row.priceCents);
    const lines: InvoiceLineInput[] = [
      {
        description: `${row.productName} x ${row.quantity}, ${isoDate(row.currentPeriodStart)} to ${isoDate(row.currentPeriodEnd)}`,
        quantity: 1,
        unitAmountCents: row.priceCents,
      },
      ...(credit > 0
        ? [{ description: 'Credit from a plan change', quantity: 1, unitAmountCents: -credit }]
        : []),
    ];
    return this.issueInvoice(tx, { accountId: row.accountId, currency: row.currency, lines, idempotencyKey });
  }

  /**
   * Runs an operation once per idempotency key: the first result is stored with the
   * operation's writes, in one transaction, and returned as it was on every repeat.
   */
  private once<T>(
    key: string,
    work: (tx: Queryable) => Promise<BillingResult<T>>,
  ): Promise<BillingResult<T>> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`billing-op:${this.tenantId}:${key}`}))`);
      const [done] = await tx
        .select({ result: billingOperations.result })
        .from(billingOperations)
        .where(tenantWhere(billingOperations, this.tenantId, eq(billingOperations.idempotencyKey, key)));
      if (done) return done.result as BillingResult<T>;
      const result = await work(tx);
      // Failures are not stored: fixing the request and retrying with the same key is allowed.
      if (!result.ok) return result;
      await tx
        .insert(billingOperations)
        .values({ tenantId: this.tenantId, idempotencyKey: key, result, createdAt: this.clock.now() });
      return result;
    });
  }

  // ---- payment methods and quotes ---------------------------------------------------------

  async listPaymentMethods(accountId: string): Promise<BillingResult<BillingPaymentMethod[]>> {
    if (!(await this.accountRow(this.db, accountId)))
      return fail('not_found', `billing account ${accountId} not found`);
    const rows = await this.db
      .select()
      .from(billingPaymentMethods)
      .where(
        tenantWhere(billingPaymentMethods, this.tenantId, eq(billingPaymentMethods.accountId, accountId)),
      )
      .orderBy(desc(billingPaymentMethods.createdAt));
    return ok(
      rows.map((r) => ({
        id: r.id,
        type: r.type,
        cardType: r.cardType,
        lastFour: r.lastFour,
        expirationMonth: r.expirationMonth,
        expirationYear: r.expirationYear,
        isDefault: r.isDefault,
      })),
    );
  }

  /** Operator: stores a payment method on a billing account (the first becomes default); once per key. */
  async addPaymentMethod(
    accountId: string,
    input: Omit<BillingPaymentMethod, 'id' | 'isDefault'>,
    idempotencyKey: string = builtinId('bp_'),
  ): Promise<BillingResult<BillingPaymentMethod>> {
    return this.once(idempotencyKey, async (tx) => {
      if (!(await this.accountRow(tx, accountId)))
        return fail('not_found', `billing account ${accountId} not found`);
      const existing = await tx
        .select({ id: billingPaymentMethods.id })
        .from(billingPaymentMethods)
        .where(
          tenantWhere(billingPaymentMethods, this.tenantId, eq(billingPaymentMethods.accountId, accountId)),
        );
      const method = { id: builtinId('pm_'), ...input, isDefault: existing.length === 0 };
      await tx
        .insert(billingPaymentMethods)
        .values({ tenantId: this.tenantId, accountId, ...method, createdAt: this.clock.now() });
      return ok(method);
    });
  }

  async quoteCart(lines: QuoteLineInput[]): Promise<BillingResult<Quote>> {
    const currency = lines[0]?.currency ?? 'USD';
    const priced: Quote['lines'] = [];
    for (const [i, line] of lines.entries()) {
      const rate = this.config.passthroughRates?.[line.chargeId] ?? this.config.defaultPassthroughUnitCents;
      if (rate === undefined)
        return fail('invalid', `no rate for passthrough charge ${line.chargeName}`, `lines.${i}.chargeId`);
      priced.push({ productId: line.productId, chargeId: line.chargeId, amountCents: rate * line.quantity });
    }
    return ok({ lines: priced, totalCents: priced.reduce((s, l) => s + l.amountCents, 0), currency });
  }
}

function checkLines(lines: readonly InvoiceLineInput[]): BillingResult<never> | undefined {
  if (lines.length === 0) return fail('invalid', 'an invoice needs at least one line', 'lines');
  for (const [i, l] of lines.entries()) {
    if (!Number.isInteger(l.quantity) || l.quantity < 1)
      return fail('invalid', `lines.${i}.quantity must be a positive integer`, `lines.${i}.quantity`);
    if (!Number.isInteger(l.unitAmountCents))
      return fail('invalid', `lines.${i}.unitAmountCents must be an integer`, `lines.${i}.unitAmountCents`);
  }
  if (lines.reduce((s, l) => s + l.quantity * l.unitAmountCents, 0) < 0)
    return fail('invalid', 'an invoice total cannot be negative', 'lines');
  return undefined;
}

function presentSubscription(row: SubscriptionRow): BillingSubscription {
  return {
    id: row.id,
    accountId: row.accountId,
    productId: row.productId,
    productName: row.productName,
    quantity: row.quantity,
    priceCents: row.priceCents,
    currency: row.currency,
    billingInterval: row.billingInterval,
    status: row.status,
    currentPeriodStart: row.currentPeriodStart.toISOString(),
    currentPeriodEnd: row.currentPeriodEnd.toISOString(),
  };
}
