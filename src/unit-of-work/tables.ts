import { index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const auditLogs = pgTable(
  'audit_logs',
  {
    tenantId: uuid('tenant_id').notNull(),
    id: uuid('id').notNull(),
    action: text('action').notNull(),
    resourceType: text('resource_type').notNull(),
    resourceId: text('resource_id').notNull(),
    actorKeyId: uuid('actor_key_id'),
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
    index('audit_logs_tenant_resource_created_idx').on(t.tenantId, t.resourceType, t.resourceId, t.createdAt),
  ],
);
