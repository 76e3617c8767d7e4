import { createHmac } from 'node:crypto';

/** What a delivery carries: the event, as its body is built from the outbox row. */
export interface DeliveredEvent {
  id: string;
  type: string;
  occurredAt: Date;
  tenantId: string;
  data: unknown;
}

/**
 * The delivery body: SPEC.md section 6's `event`, `timestamp`, `tenantId`, `data`, plus the event
 * `id` (stable across retries, for receivers' de-duplication). Built from the stored event alone,
 * so every attempt sends the same bytes.
 */
export function deliveryBody(event: DeliveredEvent): string {
  return JSON.stringify({
    id: event.id,
    event: event.type,
    timestamp: event.occurredAt.toISOString(),
    tenantId: event.tenantId,
    data: event.data,
  });
}

const PREFIX = 'whsec_';

/**
 * The key of the Standard Webhooks scheme: the secret's base64 part decoded (their convention
 * for `whsec_` secrets). Node's base64 decoder also reads base64url, which older secrets used.
 */
function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/**
 * The headers of one attempt, signed with every secret given (current first, then the previous
 * one during a rotation overlap):
 * - `X-Webhook-Signature: sha256=<hex HMAC-SHA256(secret, body)>`, comma-separated (SPEC.md);
 * - Standard Webhooks: `webhook-id` (event id), `webhook-timestamp` (Unix seconds of this
 *   attempt), `webhook-signature: v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`,
 *   space-separated, so off-the-shelf verifiers work.
 */
export function signDelivery(
  event: Pick<DeliveredEvent, 'id' | 'type' | 'occurredAt'>,
  body: string,
  secrets: readonly string[],
  attemptAt: Date,
): Record<string, string> {
  const timestamp = String(Math.floor(attemptAt.getTime() / 1000));
  const signed = `${event.id}.${timestamp}.${body}`;
  return {
    'content-type': 'application/json',
    'user-agent': 'CommerceAgentAPI-Webhooks/1',
    'x-webhook-event': event.type,
    'x-webhook-timestamp': event.occurredAt.toISOString(),
    'x-webhook-signature': secrets
      .map((s) => `sha256=${createHmac('sha256', s).update(body).digest('hex')}`)
      .join(','),
    'webhook-id': event.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': secrets
      .map((s) => `v1,${createHmac('sha256', standardKey(s)).update(signed).digest('base64')}`)
      .join(' '),
  };
}
