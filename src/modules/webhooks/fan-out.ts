import { type SQL, sql } from 'drizzle-orm';
import type { EventFanOut } from '../../unit-of-work/index.js';
import { ACP_SOURCE_EVENTS } from './acp-events.js';

const TARGETED_EVENT = 'webhook.test';
const ACP_SOURCES = sql.join(
  ACP_SOURCE_EVENTS.map((type) => sql`${type}`),
  sql`, `,
);

/**
 * The fan-out statement's tail: given a CTE named `ev` holding freshly inserted events
 * (`tenant_id, id, type, payload`), inserts one pending delivery per active subscription of that
 * tenant whose `events` include the type or `*`: every such event for a `native` subscription;
 * for an `acp` one only the order events of orders made by a checkout session (their payload, the
 * order, has a `checkoutSessionId`), which it receives as ACP `order_create`/`order_update`
 * (acp-events.ts). `ucp` targets subscribe to nothing: their deliveries are queued one by one
 * (platform-deliveries.ts). It runs in the statement that writes the events, so
 * deliveries commit or roll back with them, and a subscription created later never receives
 * older events. Returns a row per delivery written. `webhook.test` is never fanned out: it goes
 * to the one subscription it was requested for.
 *
 * `tenantId` (every event of a unit of work is that tenant's): named in the statement so that on
 * Citus it runs on the tenant's node alone instead of on every shard.
 *
 * The unit of work (a lower layer) knows nothing of webhooks: the composition root hands it this
 * statement as its `fanOut`, so the webhooks module alone writes its tables.
 */
export const fanOutFromEvents: EventFanOut = (now: Date, tenantId: string): SQL => {
  return sql`insert into webhook_deliveries
      (tenant_id, subscription_id, event_id, event_type, status, attempt_count, next_attempt_at, created_at, updated_at)
    select s.tenant_id, s.id, ev.id, ev.type, 'pending', 0, ${now}, ${now}, ${now}
    from ev
    join webhook_subscriptions s
      on s.tenant_id = ev.tenant_id and s.is_active and (ev.type = any(s.events) or '*' = any(s.events))
    where ev.type <> ${TARGETED_EVENT} and s.tenant_id = ${tenantId}::uuid
      and (s.format = 'native'
        or (s.format = 'acp' and ev.type in (${ACP_SOURCES}) and ev.payload ->> 'checkoutSessionId' is not null))
    returning 1`;
};
