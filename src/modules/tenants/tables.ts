import { boolean, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { referenceTable } from '../../db/table-traits.js';

// A reference table on Citus: the root every other row hangs off, read by every tenant.
export const tenants = referenceTable(
  pgTable('tenants', {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    /** Opt-in: record platform usage events for orders created from carts. */
    usageMetering: boolean('usage_metering').notNull().default(false),
    /** Apply the account's credit balance to each invoice issued for it (on by default). */
    autoApplyCredits: boolean('auto_apply_credits').notNull().default(true),
    /** The locale product content falls back to (a BCP 47 tag). */
    defaultLocale: text('default_locale').notNull().default('en'),
    /** Sandbox only: webhooks may target loopback `http://` URLs (local development, `webhooks listen`). */
    allowLoopbackWebhooks: boolean('allow_loopback_webhooks').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  }),
);
