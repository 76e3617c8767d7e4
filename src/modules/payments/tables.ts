import { bigint, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const PAYMENT_STATUSES = ['pending', 'processing', 'success', 'failed', 'cancelled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
/** Terminal: no further transition (complete -> 400, provider events ignored). */
export const TERMINAL_STATUSES: readonly PaymentStatus[] = ['success', 'failed', 'cancelled'];

/** Payment sessions record intent; money moves at the payment provider. */
export const paymentSessions = pgTable(
  'payment_sessions',
  {
    tenantId: uuid('tenant_id').notNull(),
    id: uuid('id').notNull(),
    accountId: text('account_id').notNull(),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    status: text('status').notNull().$type<PaymentStatus>(),
    invoiceId: text('invoice_id'),
    paymentPageSlug: text('payment_page_slug'),
    /** What moved it to a terminal state: `complete` (API) or `provider:<event id>`. */
    resolvedBy: text('resolved_by'),
    /**
     * The operation settling or reversing the session's invoice payment in the billing system (its
     * operation id), from before its billing call until its commit: other outcomes wait (409).
     */
    operationKey: text('operation_key'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('payment_sessions_tenant_created_idx').on(t.tenantId, t.createdAt),
  ],
);
