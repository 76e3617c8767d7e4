import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

/** Local payment-method references (the card itself lives at the provider). */
export const paymentMethods = distributedTable(
  pgTable(
    'payment_methods',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      accountId: text('account_id').notNull(),
      type: text('type').notNull(),
      cardType: text('card_type'),
      lastFour: text('last_four').notNull(),
      expirationMonth: integer('expiration_month'),
      expirationYear: integer('expiration_year'),
      isDefault: boolean('is_default').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      index('payment_methods_account_idx').on(t.tenantId, t.accountId),
    ],
  ),
);
