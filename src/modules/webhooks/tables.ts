import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { distributedTable } from '../../db/table-traits.js';

/**
 * What a subscription's deliveries look like. `native`: our events, signed our way. `acp`: the
 * Agentic Commerce Protocol's order webhooks (`order_create`, `order_update` with the ACP Order,
 * `Merchant-Signature`) for orders made by ACP checkouts. `ucp`: not a subscription anyone made but
 * an agent platform's order webhook URL (UCP), which deliveries signed with the seller's key
 * (RFC 9421) go to; never listed or changed through the webhook API.
 */
export const WEBHOOK_FORMATS = ['native', 'acp', 'ucp'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
/** The formats a subscription can be created with (`ucp` targets are made by checkouts). */
export const SUBSCRIPTION_FORMATS = ['native', 'acp'] as const;
export type SubscriptionFormat = (typeof SUBSCRIPTION_FORMATS)[number];

export const webhookSubscriptions = distributedTable(
  pgTable(
    'webhook_subscriptions',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      url: text('url').notNull(),
      /** Event types, or `*` for all. */
      events: text('events').array().notNull(),
      isActive: boolean('is_active').notNull(),
      format: text('format').notNull().default('native').$type<WebhookFormat>(),
      /** `ucp` targets: the seller's UCP profile URL, sent as `UCP-Agent` with each delivery. */
      agentProfileUrl: text('agent_profile_url'),
      /**
       * AES-256-GCM ciphertext of the signing secret (`iv.tag.data`, base64url). Null for `ucp`
       * targets: their deliveries are signed with the seller's key, not a shared secret.
       */
      secretCiphertext: text('secret_ciphertext'),
      /** The secret before the last rotation, still signing until `previousSecretExpiresAt`. */
      previousSecretCiphertext: text('previous_secret_ciphertext'),
      previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      // One `ucp` target per platform URL of a tenant: its deliveries share it.
      uniqueIndex('webhook_subscriptions_platform_idx').on(t.tenantId, t.url).where(sql`format = 'ucp'`),
    ],
  ),
  (t) => [
    { column: t.secretCiphertext, key: [t.tenantId, t.id], purpose: 'webhook_secret' },
    { column: t.previousSecretCiphertext, key: [t.tenantId, t.id], purpose: 'webhook_secret' },
  ],
);

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead_letter'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One row per (subscription, event), written in the transaction of the event (fan-out), so a
 * committed event always has its deliveries and a rolled-back one has none.
 */
export const webhookDeliveries = distributedTable(
  pgTable(
    'webhook_deliveries',
    {
      tenantId: uuid('tenant_id').notNull(),
      subscriptionId: uuid('subscription_id').notNull(),
      eventId: uuid('event_id').notNull(),
      eventType: text('event_type').notNull(),
      status: text('status').notNull().$type<DeliveryStatus>(),
      /** Attempts in all, across replays: numbers the rows of webhook_attempts. */
      attemptCount: integer('attempt_count').notNull(),
      /** Attempts in the current cycle (reset by replay): the 5th failure makes a dead letter. */
      cycleAttempts: integer('cycle_attempts').notNull().default(0),
      /**
       * When the delivery is next due. While a worker holds it, this is the end of its lease: a worker
       * that dies after claiming leaves it due again when the lease runs out (a resend, not a loss).
       */
      nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
      /** The claim of the worker sending it now; results are written only under the same token. */
      leaseToken: uuid('lease_token'),
      lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
      lastResponseStatus: integer('last_response_status'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.subscriptionId, t.eventId] }),
      // The worker's claim: due pending/failed deliveries, oldest first; finished ones are not indexed.
      index('webhook_deliveries_due_idx')
        .on(t.nextAttemptAt)
        .where(sql`${t.status} in ('pending', 'failed')`),
      index('webhook_deliveries_subscription_idx').on(t.tenantId, t.subscriptionId, t.createdAt),
      // Delivery stats: the last attempted delivery of a subscription.
      index('webhook_deliveries_last_attempt_idx').on(t.tenantId, t.subscriptionId, t.lastAttemptAt),
    ],
  ),
);

/** Each attempt of a delivery: time, response status, duration, truncated body, error. */
export const webhookAttempts = distributedTable(
  pgTable(
    'webhook_attempts',
    {
      tenantId: uuid('tenant_id').notNull(),
      subscriptionId: uuid('subscription_id').notNull(),
      eventId: uuid('event_id').notNull(),
      attempt: integer('attempt').notNull(),
      attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull(),
      responseStatus: integer('response_status'),
      durationMs: integer('duration_ms').notNull(),
      responseBody: text('response_body'),
      error: text('error'),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.subscriptionId, t.eventId, t.attempt] }),
      // Delivery stats: a subscription's failures over the last 24 hours.
      index('webhook_attempts_recent_idx').on(t.tenantId, t.subscriptionId, t.attemptedAt),
    ],
  ),
);
