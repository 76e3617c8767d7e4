import { jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { distributedTable, referenceTable } from '../../db/table-traits.js';

/** A tenant's payment-provider endpoint: the unguessable `endpointId` in the URL names the tenant. */
// A reference table on Citus: a provider's webhook arrives at an endpoint id, unique across
// tenants, and is resolved to its tenant by it.
export const providerIntegrations = referenceTable(
  pgTable(
    'provider_integrations',
    {
      tenantId: uuid('tenant_id').notNull(),
      provider: text('provider').notNull(),
      endpointId: text('endpoint_id').notNull(),
      /** HMAC secret the provider signs events with. */
      secret: text('secret').notNull(),
      createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
      updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    },
    (t) => [
      primaryKey({ columns: [t.tenantId, t.provider] }),
      uniqueIndex('provider_integrations_endpoint_key').on(t.endpointId),
    ],
  ),
  (t) => [{ column: t.secret, key: [t.tenantId, t.provider], purpose: 'provider_secret' }],
);

/** Provider events already applied, by the provider's event id: a repeat changes nothing. */
export const providerEvents = distributedTable(
  pgTable(
    'provider_events',
    {
      tenantId: uuid('tenant_id').notNull(),
      provider: text('provider').notNull(),
      eventId: text('event_id').notNull(),
      payload: jsonb('payload').notNull(),
      receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.tenantId, t.provider, t.eventId] })],
  ),
);
