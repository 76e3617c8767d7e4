import { and, desc, eq } from 'drizzle-orm';
import { isSealed, type KeyRing } from '../../core/key-ring.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { ProviderEvent } from './schemas.js';
import { newEndpointId, newSigningSecret } from './signature.js';
import { providerEvents, providerIntegrations } from './tables.js';

export type ProviderIntegrationRow = typeof providerIntegrations.$inferSelect;

/**
 * Creates the tenant's integration with `provider`, or rotates both its endpoint id and secret.
 * The secret is stored sealed by the key ring; the plain one is returned to be shown once.
 */
export async function saveProviderIntegration(
  tx: Queryable,
  ring: KeyRing,
  tenantId: string,
  provider: string,
  now: Date,
): Promise<{ row: ProviderIntegrationRow; secret: string }> {
  const endpointId = newEndpointId();
  const secret = newSigningSecret();
  const sealed = ring.seal('provider_secret', secret);
  const [row] = await tx
    .insert(providerIntegrations)
    .values({ tenantId, provider, endpointId, secret: sealed, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [providerIntegrations.tenantId, providerIntegrations.provider],
      set: { endpointId, secret: sealed, updatedAt: now },
    })
    .returning();
  return { row: row as ProviderIntegrationRow, secret };
}

/**
 * The integration's signing secret, opened. A value from before secrets were sealed is still in
 * clear until the start-up sealing (src/db/sealing.ts) has passed: used as it is.
 */
export const signingSecretOf = (ring: KeyRing, row: Pick<ProviderIntegrationRow, 'secret'>): string =>
  isSealed(row.secret) ? ring.open('provider_secret', row.secret) : row.secret;

/** The tenant's integration (with `provider`, else the most recently configured one). */
export async function getProviderIntegration(
  db: Queryable,
  tenantId: string,
  provider?: string,
): Promise<ProviderIntegrationRow | undefined> {
  const [row] = await db
    .select()
    .from(providerIntegrations)
    .where(
      tenantWhere(
        providerIntegrations,
        tenantId,
        provider === undefined ? undefined : eq(providerIntegrations.provider, provider),
      ),
    )
    .orderBy(desc(providerIntegrations.updatedAt))
    .limit(1);
  return row;
}

/** The integration a callback URL names; the endpoint id is the only thing that says which tenant. */
export async function findIntegrationByEndpoint(
  db: Queryable,
  provider: string,
  endpointId: string,
): Promise<ProviderIntegrationRow | undefined> {
  const [row] = await db
    .select()
    .from(providerIntegrations)
    .where(and(eq(providerIntegrations.endpointId, endpointId), eq(providerIntegrations.provider, provider)));
  return row;
}

export async function hasProviderEvent(
  db: Queryable,
  tenantId: string,
  provider: string,
  eventId: string,
): Promise<boolean> {
  const rows = await db
    .select({ eventId: providerEvents.eventId })
    .from(providerEvents)
    .where(
      tenantWhere(
        providerEvents,
        tenantId,
        and(eq(providerEvents.provider, provider), eq(providerEvents.eventId, eventId)),
      ),
    );
  return rows.length > 0;
}

/**
 * Records the event in the caller's transaction; false when its id was already recorded. A
 * concurrent insert of the same id waits for the other transaction and then reports false, so of
 * two deliveries of one event exactly one goes on to change anything.
 */
export async function recordProviderEvent(
  tx: Queryable,
  tenantId: string,
  provider: string,
  event: ProviderEvent,
  now: Date,
): Promise<boolean> {
  const rows = await tx
    .insert(providerEvents)
    .values({ tenantId, provider, eventId: event.id, payload: event, receivedAt: now })
    .onConflictDoNothing()
    .returning({ eventId: providerEvents.eventId });
  return rows.length > 0;
}
