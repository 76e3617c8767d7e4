import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

export const CREDIT_ENTRY_KINDS = ['grant', 'application', 'expiry'] as const;
export type CreditEntryKind = (typeof CREDIT_ENTRY_KINDS)[number];
/** `pending`: an application whose billing call is in flight; every other entry is `posted`. */
export type CreditEntryStatus = 'pending' | 'posted';

/**
 * An account's credit ledger: signed entries per currency. A grant adds; an application (to an
 * invoice) and an expiry take away. An application is written `pending` with its billing call's
 * intent and posted when the call succeeded; one the billing system never took is removed with
 * its intent's closing, so the balance is the sum of the entries, always. `remainingCents` on a grant is what of it is still unspent: applications spend
 * the grants that expire first, and an expiry takes away what remains of its grant.
 */
export const creditEntries = distributedTable(
  pgTable(
    'credit_entries',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      organizationId: uuid('organization_id').notNull(),
      currency: text('currency').notNull(),
      /** Signed, minor units: positive for grants and reversals, negative for applications and expiries. */
      amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
      kind: text('kind').notNull().$type<CreditEntryKind>(),
      status: text('status').notNull().$type<CreditEntryStatus>(),
      reason: text('reason').notNull(),
      /** The invoice an application (or its reversal) is for. */
      invoiceId: text('invoice_id'),
      /** What caused the entry: `subscription` (a cancellation or downgrade), `credit_entry` (the grant an expiry ends). */
      sourceType: text('source_type'),
      sourceId: text('source_id'),
      /** Grants only: what is still unspent, and when it lapses. */
      remainingCents: bigint('remaining_cents', { mode: 'number' }).notNull().default(0),
      expiresAt: timestamp('expires_at', { withTimezone: true }),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('credit_entries_account_idx').on(t.tenantId, t.organizationId, t.createdAt, t.id),
      // The expiry sweep: grants with something left that lapse.
      index('credit_entries_expiry_idx')
        .on(t.expiresAt)
        .where(sql`remaining_cents > 0 and expires_at is not null`),
    ],
  ),
);
