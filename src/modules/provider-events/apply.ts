import { systemContext } from '../../core/context.js';
import { derivedKey, runUnitOfWork, type ServiceDeps, type UnitOfWork } from '../../unit-of-work/index.js';
import {
  type FailOutcome,
  failSession,
  getSession,
  type SettleOutcome,
  settleSession,
} from '../payments/index.js';
import type { ProviderEvent, Receipt } from './schemas.js';
import { hasProviderEvent, recordProviderEvent } from './service.js';

// A provider's event, applied: the payment session's outcome is decided by the payments module
// under the session (settleSession / failSession), and the event itself, its receipt and its
// audit entry are recorded in the same unit of work, so a redelivery finds it already there.

type Reason = NonNullable<Receipt['reason']>;

interface Recorded {
  applied: boolean;
  reason?: Reason;
  status?: string;
  detail?: string;
  reversed?: boolean;
}

/** A second delivery of one event raced this one and committed first: nothing here is kept. */
class DeliveredMeanwhile extends Error {}

async function record(
  u: UnitOfWork,
  provider: string,
  event: ProviderEvent,
  sessionId: string,
  fact: Recorded,
): Promise<void> {
  if (!(await recordProviderEvent(u.tx, u.ctx.tenantId, provider, event, u.now)))
    throw new DeliveredMeanwhile();
  await u.audit({
    action: 'payment.provider_event',
    resourceType: 'payment_session',
    resourceId: sessionId,
    details: {
      provider,
      eventId: event.id,
      type: event.type,
      applied: fact.applied,
      ...(fact.reason ? { reason: fact.reason } : {}),
      ...(fact.detail ? { detail: fact.detail } : {}),
      ...(event.data.failureReason ? { failureReason: event.data.failureReason } : {}),
      ...(fact.status ? { status: fact.status } : {}),
      ...(fact.reversed ? { reversed: true } : {}),
    },
  });
}

const settled = (o: SettleOutcome): Recorded =>
  o.kind === 'settled'
    ? { applied: true, status: o.session.status }
    : o.kind === 'terminal'
      ? { applied: false, reason: 'terminal', status: o.session.status }
      : { applied: false, reason: 'settlement_refused', status: o.session.status, detail: o.message };

const failed = (o: FailOutcome): Recorded =>
  o.kind === 'terminal'
    ? { applied: false, reason: 'terminal', status: o.session.status }
    : o.kind === 'refunded'
      ? {
          applied: false,
          reason: 'refunded',
          status: o.session.status,
          detail: `${o.session.refundedCents} of ${o.session.amountCents} ${o.session.currency} refunded`,
        }
      : { applied: true, status: o.session.status, ...(o.kind === 'reversed' ? { reversed: true } : {}) };

/**
 * Applies a verified provider event for `tenantId`. A success settles the session (and its
 * invoice); a failure fails a pending session, or reverses one that had succeeded. While another
 * operation settles or reverses the session, 409 (the provider retries later); a billing outage
 * is 502. Either way nothing is recorded, so the redelivery applies the event.
 */
export async function applyProviderEvent(
  deps: ServiceDeps,
  tenantId: string,
  provider: string,
  event: ProviderEvent,
  requestId: string,
): Promise<Receipt> {
  const sessionId = event.data.paymentSessionId;
  const duplicate: Receipt = { received: true, applied: false, duplicate: true, paymentSessionId: sessionId };
  if (await hasProviderEvent(deps.db, tenantId, provider, event.id)) return duplicate;
  const ctx = systemContext(tenantId, requestId);
  // The event is the operation: a redelivery before it committed is the same operation.
  const key = derivedKey(['provider-event', tenantId, provider, event.id]);
  let fact: Recorded = { applied: false };
  const keep = (made: Recorded) => async (u: UnitOfWork) => {
    fact = made;
    await record(u, provider, event, sessionId, made);
  };
  try {
    const session = await getSession(deps.db, tenantId, sessionId);
    if (!session) {
      await runUnitOfWork(deps, ctx, key, keep({ applied: false, reason: 'unknown_session' }));
    } else if (event.type === 'payment.failed') {
      const failure = { sessionId, resolvedBy: `provider:${event.id}`, reason: event.data.failureReason };
      await failSession(deps, ctx, key, failure, (u, o) => keep(failed(o))(u));
    } else if (event.data.amountCents !== undefined && event.data.amountCents !== session.amountCents) {
      const detail = `provider moved ${event.data.amountCents}, the session is for ${session.amountCents}`;
      await runUnitOfWork(
        deps,
        ctx,
        key,
        keep({ applied: false, reason: 'amount_mismatch', status: session.status, detail }),
      );
    } else {
      await settleSession(deps, ctx, key, { sessionId, resolvedBy: `provider:${event.id}` }, (u, o) =>
        keep(settled(o))(u),
      );
    }
  } catch (err) {
    if (err instanceof DeliveredMeanwhile) return duplicate;
    throw err;
  }
  if (fact.reason === 'settlement_refused')
    deps.logger.warn(
      { tenantId, provider, eventId: event.id, sessionId, detail: fact.detail },
      'provider reported a payment the billing system refused to settle',
    );
  if (fact.reason === 'refunded')
    deps.logger.warn(
      { tenantId, provider, eventId: event.id, sessionId, detail: fact.detail },
      'provider reported a refunded payment as failed; not reversed',
    );
  return {
    received: true,
    applied: fact.applied,
    duplicate: false,
    paymentSessionId: sessionId,
    ...(fact.reason ? { reason: fact.reason } : {}),
    ...(fact.status ? { status: fact.status } : {}),
    ...(fact.reversed ? { reversed: true } : {}),
  };
}
