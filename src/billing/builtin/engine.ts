import type { Clock } from '../../clock.js';
import type { Db } from '../../db/client.js';
import {
  type BillingAccount,
  type BillingAdapter,
  type BillingContact,
  type BillingPaymentMethod,
  type BillingResult,
  type CancelSubscriptionInput,
  type ChangeSubscriptionInput,
  type CreateInvoiceInput,
  type CreditApplicationInput,
  fail,
  type Invoice,
  ok,
  type PaymentReversalInput,
  type ProvisionSubscriptionInput,
  type Quote,
  type QuoteLineInput,
  type RecordedOperation,
  type RefundInput,
  type RenewSubscriptionInput,
  type SettlementInput,
} from '../adapter.js';
import * as accounts from './accounts.js';
import * as adjustments from './adjustments.js';
import { ACCOUNT_ID, builtinId } from './ids.js';
import * as invoices from './invoices.js';
import { type BuiltinConfig, type EngineContext, findOperation } from './records.js';
import * as subscriptions from './subscriptions.js';

export type { BuiltinConfig } from './records.js';

/**
 * The built-in billing engine: a small but real billing system in its own tables (accounts,
 * invoices with lines, payments, subscriptions, payment methods), reached through the
 * BillingAdapter interface like any external one. Each change runs in its own transaction on the
 * engine's connection, never inside the API's transaction, as an external system would, and
 * records its result by idempotency key (`findOperation` answers from that record). The work is
 * in accounts.ts, invoices.ts and subscriptions.ts; this class is the adapter over them.
 */
export class BuiltinBilling implements BillingAdapter {
  readonly name = 'builtin';
  private readonly ctx: EngineContext;

  constructor(db: Db, clock: Clock, tenantId: string, config: BuiltinConfig = {}) {
    this.ctx = { db, clock, tenantId, config };
  }

  isAccountId(id: string): boolean {
    return ACCOUNT_ID.test(id);
  }

  /** Operator: opens a billing account (`ba_...`, number `A-000001`...); once per idempotency key. */
  createAccount(
    input: { name: string; currency: string; contacts?: BillingContact[] },
    idempotencyKey: string = builtinId('bp_'),
  ): Promise<BillingAccount> {
    return accounts.createAccount(this.ctx, input, idempotencyKey);
  }

  listAccounts(): Promise<BillingAccount[]> {
    return accounts.listAccounts(this.ctx);
  }

  getAccount(accountId: string) {
    return accounts.getAccount(this.ctx, accountId);
  }

  listPaymentMethods(accountId: string) {
    return accounts.listPaymentMethods(this.ctx, accountId);
  }

  /** Operator: stores a payment method on a billing account (the first becomes default); once per key. */
  addPaymentMethod(
    accountId: string,
    input: Omit<BillingPaymentMethod, 'id' | 'isDefault'>,
    idempotencyKey: string = builtinId('bp_'),
  ) {
    return accounts.addPaymentMethod(this.ctx, accountId, input, idempotencyKey);
  }

  listInvoices(accountId: string) {
    return invoices.listInvoices(this.ctx, accountId);
  }

  getInvoice(invoiceId: string) {
    return invoices.getInvoice(this.ctx, invoiceId);
  }

  createInvoice(input: CreateInvoiceInput): Promise<BillingResult<Invoice>> {
    return invoices.createInvoice(this.ctx, input);
  }

  settleInvoice(invoiceId: string, payment: SettlementInput): Promise<BillingResult<Invoice>> {
    return invoices.settleInvoice(this.ctx, invoiceId, payment);
  }

  reversePayment(invoiceId: string, input: PaymentReversalInput): Promise<BillingResult<Invoice>> {
    return invoices.reversePayment(this.ctx, invoiceId, input);
  }

  voidInvoice(invoiceId: string, idempotencyKey: string): Promise<BillingResult<Invoice>> {
    return invoices.voidInvoice(this.ctx, invoiceId, idempotencyKey);
  }

  /** Operator: voids or writes off an open invoice (again: no change); once per key when given one. */
  closeInvoice(invoiceId: string, status: 'void' | 'uncollectible', idempotencyKey?: string) {
    return invoices.closeInvoice(this.ctx, invoiceId, status, idempotencyKey);
  }

  listSubscriptions(accountId: string) {
    return subscriptions.listSubscriptions(this.ctx, accountId);
  }

  provisionSubscription(input: ProvisionSubscriptionInput) {
    return subscriptions.provisionSubscription(this.ctx, input);
  }

  changeSubscription(input: ChangeSubscriptionInput) {
    return subscriptions.changeSubscription(this.ctx, input);
  }

  cancelSubscription(input: CancelSubscriptionInput) {
    return subscriptions.cancelSubscription(this.ctx, input);
  }

  renewSubscription(input: RenewSubscriptionInput) {
    return subscriptions.renewSubscription(this.ctx, input);
  }

  refundPayment(invoiceId: string, input: RefundInput): Promise<BillingResult<Invoice>> {
    return adjustments.refundPayment(this.ctx, invoiceId, input);
  }

  applyCredit(invoiceId: string, input: CreditApplicationInput): Promise<BillingResult<Invoice>> {
    return adjustments.applyCredit(this.ctx, invoiceId, input);
  }

  findOperation(idempotencyKey: string): Promise<BillingResult<RecordedOperation | null>> {
    return findOperation(this.ctx, idempotencyKey);
  }

  async quoteCart(lines: QuoteLineInput[]): Promise<BillingResult<Quote>> {
    const currency = lines[0]?.currency ?? 'USD';
    const priced: Quote['lines'] = [];
    for (const [i, line] of lines.entries()) {
      const rate =
        this.ctx.config.passthroughRates?.[line.chargeId] ?? this.ctx.config.defaultPassthroughUnitCents;
      if (rate === undefined)
        return fail('invalid', `no rate for passthrough charge ${line.chargeName}`, `lines.${i}.chargeId`);
      priced.push({ productId: line.productId, chargeId: line.chargeId, amountCents: rate * line.quantity });
    }
    return ok({ lines: priced, totalCents: priced.reduce((s, l) => s + l.amountCents, 0), currency });
  }
}
