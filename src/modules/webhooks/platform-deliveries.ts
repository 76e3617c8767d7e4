import { sql } from 'drizzle-orm';
import { uuidv7 } from 'uuidv7';
import { AppError } from '../../core/errors.js';
import { rowsOf } from '../../db/client.js';
import { eventRowsInsert } from '../../events/outbox.js';
import type { UnitOfWork } from '../../unit-of-work/index.js';
import { urlSyntaxProblem } from './url-safety.js';

/** How a platform delivery is signed: UCP's RFC 9421 signature with the seller's key. */
export type PlatformSigning = 'ucp';

export interface PlatformDelivery {
  /** The platform's webhook URL (UCP: `webhook_url` of its order capability's config). */
  url: string;
  /** What happened, e.g. `order_created`; the delivery's event type is `<signing>.<eventType>`. */
  eventType: string;
  /** The JSON body to POST, e.g. the full UCP order entity (sent as it is, current state). */
  body: unknown;
  signing: PlatformSigning;
  /** The seller's UCP profile URL, sent as `UCP-Agent: profile="<url>"` (UCP requires it). */
  agentProfileUrl: string;
}

export interface QueuedPlatformDelivery {
  /** The delivery's id: its event's, also sent as `Webhook-Id`. */
  id: string;
  /** The platform target the delivery goes to (one per platform URL of the tenant). */
  targetId: string;
}

const EVENT_TYPE = /^[a-z][a-z0-9_.]{0,63}$/;

/**
 * In the caller's unit of work: queues a POST of `body` to an agent platform's URL through the
 * webhook delivery machinery (the same queue, retries on failure with back-off, dead letter after
 * 5 attempts, attempt log, send-time address check). Each attempt is signed as `signing` says
 * (delivery/prepare.ts). The platform URL becomes the tenant's `ucp` target for that URL, made on
 * first use and never shown by the webhook API. Commits or rolls back with the unit's change, and
 * wakes the workers once committed.
 *
 * The URL's syntax is checked here (https, or http to a loopback host); its addresses are checked
 * at sending. A URL refused here is a 400 naming `webhook_url`: check it with platformUrlProblem
 * when the platform hands it over, so that this never refuses.
 */
export async function enqueuePlatformDelivery(
  u: UnitOfWork,
  delivery: PlatformDelivery,
): Promise<QueuedPlatformDelivery> {
  const syntax = urlSyntaxProblem(delivery.url, { field: 'webhook_url', http: 'loopback' });
  if (syntax) throw new AppError('validation_failed', syntax.message, [syntax]);
  if (!EVENT_TYPE.test(delivery.eventType)) throw new Error(`not an event type: ${delivery.eventType}`);
  const tenantId = u.ctx.tenantId;
  const [target] = rowsOf<{ id: string }>(
    await u.tx.execute(sql`
      insert into webhook_subscriptions
        (tenant_id, id, url, events, is_active, format, agent_profile_url, secret_ciphertext, created_at, updated_at)
      values (${tenantId}::uuid, ${uuidv7()}::uuid, ${delivery.url}, '{}', true, ${delivery.signing},
        ${delivery.agentProfileUrl}, null, ${u.now}, ${u.now})
      on conflict (tenant_id, url) where format = 'ucp'
        do update set agent_profile_url = excluded.agent_profile_url, updated_at = excluded.updated_at
      returning id`),
  );
  if (!target) throw new Error('platform target was not written');
  const event = {
    tenantId,
    id: uuidv7(),
    type: `${delivery.signing}.${delivery.eventType}`,
    occurredAt: u.now,
    payload: delivery.body,
    requestId: u.ctx.requestId,
  };
  await u.tx.execute(eventRowsInsert([event]));
  await u.tx.execute(sql`
    insert into webhook_deliveries
      (tenant_id, subscription_id, event_id, event_type, status, attempt_count, next_attempt_at, created_at, updated_at)
    values (${tenantId}::uuid, ${target.id}::uuid, ${event.id}::uuid, ${event.type}, 'pending', 0, ${u.now},
      ${u.now}, ${u.now})`);
  u.deliveriesQueued();
  return { id: event.id, targetId: target.id };
}
