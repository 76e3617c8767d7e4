import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';
import type {
  AppliedDiscount,
  CheckoutAddress,
  CheckoutBuyer,
  CheckoutLine,
  CheckoutMessage,
  CheckoutProtocol,
  CheckoutStatus,
  CheckoutTotals,
  FulfillmentOption,
  RequestedItem,
} from './model.js';

/**
 * One row per agentic checkout session, whichever protocol opened it. Its lines live in a cart
 * of its own (`cart_id`), priced by the cart machinery; the rest is the session's state as last
 * decided (lines, options, totals and messages are stored as presented, so a read is one row).
 */
export const checkoutSessions = distributedTable(
  pgTable(
    'checkout_sessions',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      protocol: text('protocol').notNull().$type<CheckoutProtocol>(),
      status: text('status').notNull().$type<CheckoutStatus>(),
      currency: text('currency').notNull(),
      cartId: uuid('cart_id').notNull(),
      items: jsonb('items').notNull().$type<RequestedItem[]>(),
      lines: jsonb('lines').notNull().$type<CheckoutLine[]>(),
      buyer: jsonb('buyer').$type<CheckoutBuyer | null>(),
      address: jsonb('address').$type<CheckoutAddress | null>(),
      fulfillmentOptions: jsonb('fulfillment_options').notNull().$type<FulfillmentOption[]>(),
      selectedFulfillmentOptionId: text('selected_fulfillment_option_id'),
      discountCodes: jsonb('discount_codes').notNull().$type<string[]>(),
      appliedDiscounts: jsonb('applied_discounts').notNull().$type<AppliedDiscount[]>(),
      rejectedDiscounts: jsonb('rejected_discounts').notNull().$type<{ code: string; reason: string }[]>(),
      totals: jsonb('totals').notNull().$type<CheckoutTotals>(),
      totalCents: bigint('total_cents', { mode: 'number' }).notNull(),
      messages: jsonb('messages').notNull().$type<CheckoutMessage[]>(),
      orderId: uuid('order_id'),
      paymentSessionId: uuid('payment_session_id'),
      continueUrl: text('continue_url'),
      platformWebhookUrl: text('platform_webhook_url'),
      platformProfileUrl: text('platform_profile_url'),
      /** Increases with every change: a completion places the order priced at the version it read. */
      version: integer('version').notNull(),
      expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('checkout_sessions_tenant_created_idx').on(t.tenantId, t.createdAt),
    ],
  ),
);

/**
 * Delegated payment tokens (ACP delegate_payment): the token is kept as its SHA-256 only, the
 * card as a keyed fingerprint and its last four digits; never the number or the CVC.
 */
export const delegatedPaymentTokens = distributedTable(
  pgTable(
    'delegated_payment_tokens',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      tokenHash: text('token_hash').notNull(),
      cardLast4: text('card_last4').notNull(),
      cardBrand: text('card_brand'),
      cardFingerprint: text('card_fingerprint').notNull(),
      maxAmountCents: bigint('max_amount_cents', { mode: 'number' }).notNull(),
      currency: text('currency').notNull(),
      checkoutSessionId: text('checkout_session_id').notNull(),
      merchantId: text('merchant_id').notNull(),
      expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
      metadata: jsonb('metadata').notNull().$type<Record<string, string>>(),
      /** Set once, by the completion that spent it (in the order's unit of work). */
      usedAt: timestamp('used_at', { withTimezone: true }),
      usedForOrderId: uuid('used_for_order_id'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('delegated_payment_tokens_tenant_hash_idx').on(t.tenantId, t.tokenHash),
    ],
  ),
);

export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;
export type DelegatedTokenRow = typeof delegatedPaymentTokens.$inferSelect;
