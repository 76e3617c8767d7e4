import { sql } from 'drizzle-orm';
import {
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
import { distributedTable } from '../db/table-traits.js';

export const auditLogs = distributedTable(
  pgTable(
    'audit_logs',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      action: text('action').notNull(),
      resourceType: text('resource_type').notNull(),
      resourceId: text('resource_id').notNull(),
      actorKeyId: uuid('actor_key_id'),
      /** The console user that acted (null for an API key or the system). */
      actorUserId: uuid('actor_user_id'),
      requestId: text('request_id'),
      details: jsonb('details'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      // Newest-first listing and since/until ranges.
      index('audit_logs_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
      // `action` filters resolve to a set of known actions (see actions.ts), so this index serves them.
      index('audit_logs_tenant_action_created_idx').on(t.tenantId, t.action, t.createdAt),
      index('audit_logs_tenant_resource_created_idx').on(
        t.tenantId,
        t.resourceType,
        t.resourceId,
        t.createdAt,
      ),
    ],
  ),
);

export type IntentStatus = 'pending' | 'completed' | 'failed' | 'compensated' | 'abandoned' | 'attention';
export type IntentRecovery = 'compensate' | 'roll_forward';
export type EffectKind =
  | 'create_invoice'
  | 'provision_subscription'
  | 'change_subscription'
  | 'renew_subscription'
  | 'cancel_subscription'
  | 'settle_invoice'
  | 'reverse_payment'
  | 'void_invoice'
  | 'refund_payment'
  | 'apply_credit'
  | 'operator';

/** One external call of an operation, and what it did. */
export interface EffectRecord {
  step: string;
  kind: EffectKind;
  /**
   * `pending`: not called (yet); `applied`: the call answered with a result; `refused`: it answered
   * with a failure value (nothing happened); `unknown`: it failed without an answer (outage,
   * timeout); `undone`: compensated; `not_applied`: the billing system never saw it take effect.
   */
  outcome: 'pending' | 'applied' | 'refused' | 'unknown' | 'undone' | 'not_applied';
  /** What the call created or changed in the billing system. */
  resources?: { subscriptionId?: string; invoiceId?: string; accountId?: string };
  error?: string;
}

/**
 * An operation's intent to change an external system, committed before the first call: the
 * reconciler completes or compensates every intent left pending (see src/unit-of-work/intents.ts).
 */
export const intents = distributedTable(
  pgTable(
    'intents',
    {
      tenantId: uuid('tenant_id').notNull(),
      id: uuid('id').notNull(),
      /** The operation key's id: a retried operation finds its intent by it. */
      operationId: text('operation_id').notNull(),
      /** What ran, e.g. `subscriptions.create`: the reconciler's handler for roll-forward. */
      operation: text('operation').notNull(),
      recovery: text('recovery').notNull().$type<IntentRecovery>(),
      status: text('status').notNull().$type<IntentStatus>(),
      /** Bumped when a closed, uncompleted intent is taken up again: its calls get new keys. */
      attempt: integer('attempt').notNull(),
      /** The resource the operation changes (subscription, payment session), if any. */
      subjectType: text('subject_type'),
      subjectId: text('subject_id'),
      /** What finishing or undoing the operation needs, as decided before the first call. */
      plan: jsonb('plan').notNull(),
      effects: jsonb('effects').notNull().$type<EffectRecord[]>(),
      actorKeyId: uuid('actor_key_id'),
      /** The console user that asked (through a session), so a resumed write's audit names it too. */
      actorUserId: uuid('actor_user_id'),
      requestId: text('request_id').notNull(),
      /** Who owns the intent until `lease_until`: the operation, a retry of it, or the reconciler. */
      leaseToken: uuid('lease_token'),
      leaseUntil: timestamp('lease_until', { withTimezone: true }).notNull(),
      /** How often the intent was taken up (first run, retries, reconciler passes). */
      runs: integer('runs').notNull(),
      lastError: text('last_error'),
      /** `operation`, `retry` or `reconciler`: who closed it. */
      resolvedBy: text('resolved_by'),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
      closedAt: timestamp('closed_at', { withTimezone: true }),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.id] }),
      uniqueIndex('intents_operation_key').on(t.tenantId, t.operationId),
      index('intents_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
      // The reconciler's scan and /readyz: pending intents by lease expiry.
      index('intents_pending_idx').on(t.leaseUntil).where(sql`status = 'pending'`),
    ],
  ),
);
