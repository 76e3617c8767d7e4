import { and, desc, eq } from 'drizzle-orm';
import type { Invoice } from '../../billing/index.js';
import { AppError } from '../../core/errors.js';
import type { Queryable } from '../../db/client.js';
import { tenantWhere } from '../../db/tenant-scope.js';
import type { RequestContext } from '../../http/context.js';
import type { Mutation } from '../../http/mutation.js';
import type { ServiceDeps } from '../../unit-of-work/index.js';
import { recordAudit } from '../../unit-of-work/index.js';
import { getSession, isTerminal, resolveSession, settleSessionInvoice } from '../payments/index.js';
import type { ProviderEvent, Receipt } from './schemas.js';
import { newEndpointId, newSigningSecret } from './signature.js';
import { providerEvents, providerIntegrations } from './tables.js';

export type ProviderIntegrationRow = typeof providerIntegrations.$inferSelect;

/** Creates the tenant's integration with `provider`, or rotates both its endpoint id and secret. */
export async function saveProviderIntegration(
  tx: Queryable,
  tenantId: string,
  provider: string,
  now: Date,
): Promise<ProviderIntegrationRow> {
  const endpointId = newEndpointId();
  // Stored as issued for now: webhook secrets get encryption at rest in a later change.
  const secret = newSigningSecret();
  const [row] = await tx
    .insert(providerIntegrations)
    .values({ tenantId, provider, endpointId, secret, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [providerIntegrations.tenantId, providerIntegrations.provider],
      set: { endpointId, secret, updatedAt: now },
    })
    .returning();
  return row as ProviderIntegrationRow;
}

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
async function recordProviderEvent(
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

/**
 * The context a provider callback acts in. There is no API key: `keyId` names the provider and
 * is NOT a key id, so never pass this context to `m.audit` (audit `actor_key_id` is a uuid);
 * provider audit entries are written with `recordAudit` and a null actor key.
 */
export function providerContext(
  deps: Pick<ServiceDeps, 'config'>,
  tenantId: string,
  provider: string,
  requestId: string,
): RequestContext {
  return {
    tenantId,
    environment: deps.config.appEnv,
    keyId: `provider:${provider}`,
    scopes: [],
    rateTier: 'standard',
    requestId,
  };
}

type SkipReason = NonNullable<Receipt['reason']>;

/** What was decided before the transaction: settle first (an adapter call), or record without applying. */
export type PreparedEvent =
  | { apply: true; settled: Invoice | null }
  | { apply: false; reason: SkipReason; status?: string; detail?: string };

/**
 * Everything that must happen outside our transaction: the session's state as of now and, for a
 * success, the invoice settlement (idempotent by session id, so a racing `complete` settles the
 * same single payment). A billing outage propagates (502: the provider retries); a refusal is
 * returned so the event is recorded without moving the session (docs/provider-events.md).
 */
export async function prepareProviderEvent(
  deps: Pick<ServiceDeps, 'db' | 'billing'>,
  tenantId: string,
  event: ProviderEvent,
): Promise<PreparedEvent> {
  const session = await getSession(deps.db, tenantId, event.data.paymentSessionId);
  if (!session) return { apply: false, reason: 'unknown_session' };
  if (isTerminal(session.status)) return { apply: false, reason: 'terminal', status: session.status };
  if (event.type === 'payment.failed') return { apply: true, settled: null };
  if (event.data.amountCents !== undefined && event.data.amountCents !== session.amountCents) {
    return {
      apply: false,
      reason: 'amount_mismatch',
      status: session.status,
      detail: `provider moved ${event.data.amountCents}, the session is for ${session.amountCents}`,
    };
  }
  try {
    const settled = await settleSessionInvoice(await deps.billing.forTenant(deps.db, tenantId), session);
    return { apply: true, settled };
  } catch (err) {
    if (err instanceof AppError && err.code === 'conflict') {
      return { apply: false, reason: 'settlement_refused', status: session.status, detail: err.message };
    }
    throw err;
  }
}

/**
 * Inside the mutation: records the event (a duplicate changes nothing), then moves the session
 * under its row lock. Of a provider event and a racing `complete`, exactly one transitions and
 * emits; the other sees a terminal session.
 */
export async function applyProviderEvent(
  m: Mutation,
  provider: string,
  event: ProviderEvent,
  prepared: PreparedEvent,
): Promise<Receipt> {
  const sessionId = event.data.paymentSessionId;
  const base = { received: true as const, paymentSessionId: sessionId };
  if (!(await recordProviderEvent(m.tx, m.ctx.tenantId, provider, event, m.now))) {
    return { ...base, applied: false, duplicate: true };
  }
  let receipt: Receipt;
  let detail: string | undefined;
  if (!prepared.apply) {
    detail = prepared.detail;
    receipt = {
      ...base,
      applied: false,
      duplicate: false,
      reason: prepared.reason,
      ...(prepared.status ? { status: prepared.status } : {}),
    };
  } else {
    const outcome = event.type === 'payment.succeeded' ? 'success' : 'failed';
    const { changed, session } = await resolveSession(
      m,
      sessionId,
      outcome,
      `provider:${event.id}`,
      prepared.settled,
    );
    receipt = {
      ...base,
      applied: changed,
      duplicate: false,
      ...(changed ? {} : { reason: 'terminal' as const }),
      status: session.status,
    };
  }
  await recordAudit(
    m.tx,
    { tenantId: m.ctx.tenantId, keyId: null, requestId: m.ctx.requestId },
    {
      action: 'payment.provider_event',
      resourceType: 'payment_session',
      resourceId: sessionId,
      details: {
        provider,
        eventId: event.id,
        type: event.type,
        applied: receipt.applied,
        ...(receipt.reason ? { reason: receipt.reason } : {}),
        ...(detail ? { detail } : {}),
        ...(event.data.failureReason ? { failureReason: event.data.failureReason } : {}),
        ...(receipt.status ? { status: receipt.status } : {}),
      },
    },
    m.now,
  );
  return receipt;
}
