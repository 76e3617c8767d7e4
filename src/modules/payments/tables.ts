import { bigint, index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

export const PAYMENT_STATUSES = ['pending', 'processing', 'success', 'failed', 'cancelled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
/** Terminal: no further transition (complete -> 400, provider events ignored). */
export const TERMINAL_STATUSES: readonly PaymentStatus[] = ['success', 'failed', 'cancelled'];

/** What a provider said after a success: the session stays `success`, its money is taken back. */
export interface SessionReversal {
  /** The provider's failure reason, or `provider_reported_failure` when it gave none. */
  reason: string;
  createdAt: string;
  /** The provider's reference: `provider:<event id>`. */
  providerReference: string;
}

/** Payment sessions record intent; money moves at the payment provider. */
export const paymentSessions = distributedTable(
  pgTable(
    'payment_sessions',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      accountId: text('account_id').notNull(),
      amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
      currency: text('currency').notNull(),
      status: text('status').notNull().$type<PaymentStatus>(),
      invoiceId: text('invoice_id'),
      /** The order the session pays (same tenant), if any: its payment status follows the session. */
      orderId: uuid('order_id'),
      paymentPageSlug: text('payment_page_slug'),
      /** What moved it to a terminal state: `complete` (API) or `provider:<event id>`. */
      resolvedBy: text('resolved_by'),
      /**
       * The operation settling or reversing the session's invoice payment in the billing system (its
       * operation id), from before its billing call until its commit: other outcomes wait (409).
       */
      operationKey: text('operation_key'),
      /** The sum of the session's refunds that are pending or succeeded: never above `amountCents`. */
      refundedCents: bigint('refunded_cents', { mode: 'number' }).notNull().default(0),
      /**
       * A provider's failure after `success` (which stays: it is terminal), as a dispute: its
       * settlement is undone and the money counts as not paid.
       */
      reversal: jsonb('reversal').$type<SessionReversal>(),
      /** Key/value tags set by the caller (PUT /{resource}/{id}/tags/{key}). */
      tags: jsonb('tags').notNull().$type<Record<string, string>>().default({}),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('payment_sessions_tenant_created_idx').on(t.tenantId, t.createdAt),
      index('payment_sessions_tenant_order_idx').on(t.tenantId, t.orderId),
    ],
  ),
);

export const REFUND_REASONS = [
  'requested_by_customer',
  'duplicate',
  'fraudulent',
  'service_issue',
  'other',
] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Money given back on a successful payment session; the billing system records it against the invoice. */
export const refunds = distributedTable(
  pgTable(
    'refunds',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      paymentSessionId: uuid('payment_session_id').notNull(),
      /** The session's account (copied for the `accountId` filter). */
      accountId: text('account_id').notNull(),
      /** The invoice the refund is recorded against in the billing system, if any. */
      invoiceId: text('invoice_id'),
      amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
      currency: text('currency').notNull(),
      reason: text('reason').notNull().$type<RefundReason>(),
      /** The caller's free text beside the reason. */
      note: text('note'),
      status: text('status').notNull().$type<RefundStatus>(),
      /** The order's units it puts back in stock (asked while pending, moved once succeeded); null: none. */
      restock: jsonb('restock').$type<{ productId: string; quantity: number }[]>(),
      failureMessage: text('failure_message'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('refunds_tenant_session_idx').on(t.tenantId, t.paymentSessionId),
      index('refunds_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
    ],
  ),
);
