import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import { AppError } from '../../core/errors.js';
import type { ServiceDeps } from '../../unit-of-work/index.js';
import { getSession } from '../payments/index.js';
import type { ProviderEvent, SimulateBody } from './schemas.js';
import { getProviderIntegration, signingSecretOf } from './service.js';
import { newEventId, SIGNATURE_HEADER, signatureHeader } from './signature.js';

export const callbackPath = (provider: string, endpointId: string) =>
  `/api/v1/provider-events/${provider}/${endpointId}`;

/** A signed event as the sandbox provider would POST it to the tenant's callback. */
export interface SandboxDelivery {
  event: ProviderEvent;
  path: string;
  headers: Record<string, string>;
  raw: string;
}

/**
 * The sandbox provider's event for a session: its id derived from the tenant and the request's
 * Idempotency-Key (a retried simulation is a duplicate), or the one given, or a new one; signed
 * with the tenant's sandbox secret at the server's time. 404 when no sandbox provider is set up.
 */
export async function sandboxEvent(
  deps: ServiceDeps,
  tenantId: string,
  input: Static<typeof SimulateBody>,
  idempotencyKey: string | undefined,
): Promise<SandboxDelivery> {
  const integration = await getProviderIntegration(deps.db, tenantId, 'sandbox');
  if (!integration)
    throw new AppError(
      'not_found',
      'No sandbox payment provider is configured: PUT /api/v1/admin/payment-provider',
    );
  const session = await getSession(deps.db, tenantId, input.paymentSessionId);
  const eventId =
    input.eventId ??
    (idempotencyKey
      ? `evt_${createHash('sha256').update(`${tenantId}:${idempotencyKey}`).digest('hex').slice(0, 24)}`
      : newEventId());
  const event: ProviderEvent = {
    id: eventId,
    type: input.outcome === 'succeeded' ? 'payment.succeeded' : 'payment.failed',
    data: {
      paymentSessionId: input.paymentSessionId,
      ...(session ? { amountCents: session.amountCents } : {}),
      ...(input.outcome === 'failed' ? { failureReason: input.failureReason ?? 'card_declined' } : {}),
    },
  };
  const raw = JSON.stringify(event);
  const timestamp = Math.floor(deps.clock.now().getTime() / 1000);
  return {
    event,
    path: callbackPath(integration.provider, integration.endpointId),
    headers: {
      'content-type': 'application/json',
      [SIGNATURE_HEADER]: signatureHeader(signingSecretOf(deps.keyRing, integration), timestamp, raw),
    },
    raw,
  };
}
