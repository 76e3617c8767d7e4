import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

// The built-in billing engine's own tables, kept apart from the API's (prefix `billing_`): the
// API reaches them only through the BillingAdapter interface, as it would an external system.

const money = (name: string) => bigint(name, { mode: 'number' });

export const billingAccounts = distributedTable(
  pgTable(
    'billing_accounts',
    {
      tenantId: uuid('tenant_id').notNull(),
      /** `ba_` + 20 characters [0-9a-z]. */
      id: text('id').notNull(),
      /** `A-` + a zero-padded per-tenant sequence, e.g. `A-000042`. */
      accountNumber: text('account_number').notNull(),
      name: text('name').notNull(),
      currency: text('currency').notNull(),
      contacts: jsonb('contacts')
        .notNull()
        .$type<{ name: string | null; email: string | null; phone: string | null }[]>(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('billing_accounts_number_key').on(t.tenantId, t.accountNumber),
    ],
  ),
);

export const billingInvoices = distributedTable(
  pgTable(
    'billing_invoices',
    {
      tenantId: uuid('tenant_id').notNull(),
      /** `in_` + 20 characters [0-9a-z]. */
      id: text('id').notNull(),
      accountId: text('account_id').notNull(),
      invoiceNumber: text('invoice_number').notNull(),
      invoiceDate: date('invoice_date').notNull(),
      dueDate: date('due_date').notNull(),
      currency: text('currency').notNull(),
      amountCents: money('amount_cents').notNull(),
      balanceCents: money('balance_cents').notNull(),
      status: text('status').notNull().$type<'open' | 'paid' | 'void' | 'uncollectible'>(),
      /** The billing subscription the invoice bills (a period, a change, an add-on), if any. */
      subscriptionId: text('subscription_id'),
      /** Set when the invoice was created by an idempotent call; a repeat returns this invoice. */
      idempotencyKey: text('idempotency_key'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('billing_invoices_number_key').on(t.tenantId, t.invoiceNumber),
      uniqueIndex('billing_invoices_idempotency_key').on(t.tenantId, t.idempotencyKey),
      index('billing_invoices_account_idx').on(t.tenantId, t.accountId, t.createdAt),
    ],
  ),
);

export const billingInvoiceLines = distributedTable(
  pgTable(
    'billing_invoice_lines',
    {
      tenantId: uuid('tenant_id').notNull(),
      invoiceId: text('invoice_id').notNull(),
      position: integer('position').notNull(),
      description: text('description').notNull(),
      quantity: bigint('quantity', { mode: 'number' }).notNull(),
      unitAmountCents: money('unit_amount_cents').notNull(),
      amountCents: money('amount_cents').notNull(),
    },
    (t) => [primaryKey({ columns: [t.tenantId, t.invoiceId, t.position] })],
  ),
);

/** Payments applied to invoices; the idempotency key makes a repeated settlement a no-op. */
export const billingPayments = distributedTable(
  pgTable(
    'billing_payments',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: text('id').notNull(),
      invoiceId: text('invoice_id').notNull(),
      amountCents: money('amount_cents').notNull(),
      currency: text('currency').notNull(),
      paymentReference: text('payment_reference').notNull(),
      /** `payment` (a settlement or its reversal) or `credit` (account credit applied to the invoice). */
      method: text('method').notNull().$type<'payment' | 'credit'>().default('payment'),
      idempotencyKey: text('idempotency_key').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('billing_payments_idempotency_key').on(t.tenantId, t.idempotencyKey),
      index('billing_payments_invoice_idx').on(t.tenantId, t.invoiceId),
    ],
  ),
);

export const billingSubscriptions = distributedTable(
  pgTable(
    'billing_subscriptions',
    {
      tenantId: uuid('tenant_id').notNull(),
      /** `bs_` + 20 characters [0-9a-z]. */
      id: text('id').notNull(),
      accountId: text('account_id').notNull(),
      productId: text('product_id').notNull(),
      productName: text('product_name').notNull(),
      quantity: bigint('quantity', { mode: 'number' }).notNull(),
      priceCents: money('price_cents').notNull(),
      currency: text('currency').notNull(),
      billingInterval: text('billing_interval').notNull().$type<'month' | 'year'>(),
      status: text('status').notNull().$type<'active' | 'cancelled' | 'pending_cancellation'>(),
      currentPeriodStart: timestamp('current_period_start', { withTimezone: true }).notNull(),
      currentPeriodEnd: timestamp('current_period_end', { withTimezone: true }).notNull(),
      /** Credit to apply on the next invoice, minor units (from downgrades). */
      creditCents: money('credit_cents').notNull(),
      idempotencyKey: text('idempotency_key').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('billing_subscriptions_idempotency_key').on(t.tenantId, t.idempotencyKey),
      index('billing_subscriptions_account_idx').on(t.tenantId, t.accountId),
    ],
  ),
);

/** Every change applied, by idempotency key: what `findOperation` answers and a repeat returns. */
export const billingOperations = distributedTable(
  pgTable(
    'billing_operations',
    {
      tenantId: uuid('tenant_id').notNull(),
      idempotencyKey: text('idempotency_key').notNull(),
      /** What the result holds: `invoice`, `subscription`, `account` or `payment_method`. */
      kind: text('kind').notNull().default('subscription'),
      /** The result returned the first time, returned again on a repeat. */
      result: jsonb('result').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.tenantId, t.idempotencyKey] })],
  ),
);

export const billingPaymentMethods = distributedTable(
  pgTable(
    'billing_payment_methods',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: text('id').notNull(),
      accountId: text('account_id').notNull(),
      type: text('type').notNull(),
      cardType: text('card_type'),
      lastFour: text('last_four').notNull(),
      expirationMonth: integer('expiration_month'),
      expirationYear: integer('expiration_year'),
      isDefault: boolean('is_default').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('billing_payment_methods_account_idx').on(t.tenantId, t.accountId),
    ],
  ),
);

/** Money given back on a settled payment: a refund against the invoice it paid (a credit note). */
export const billingRefunds = distributedTable(
  pgTable(
    'billing_refunds',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: text('id').notNull(),
      invoiceId: text('invoice_id').notNull(),
      paymentReference: text('payment_reference').notNull(),
      amountCents: money('amount_cents').notNull(),
      currency: text('currency').notNull(),
      reason: text('reason').notNull(),
      idempotencyKey: text('idempotency_key').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('billing_refunds_idempotency_key').on(t.tenantId, t.idempotencyKey),
      index('billing_refunds_invoice_idx').on(t.tenantId, t.invoiceId),
    ],
  ),
);
