import { createHmac } from 'node:crypto';
import { serializeDictionary } from 'structured-headers';
import type { Clock } from '../../../clock.js';
import type { KeyRing } from '../../../core/key-ring.js';
import type { Queryable } from '../../../db/client.js';
import { type DeliveredEvent, deliveryBody, signDelivery } from '../../../events/signing.js';
import { sellerRequestSigner } from '../../seller/index.js';
import { acpEventBody, isAcpSourceEvent } from '../acp-events.js';
import { type AcpOrderReads, readAcpOrderFacts } from '../acp-order-reads.js';
import type { ClaimedDelivery } from './queue.js';

/** What preparing a delivery reads: secrets and the seller's key, and (ACP) the order. */
export interface PrepareDeps {
  keyRing: KeyRing;
  clock: Clock;
  /** For the seller's signing key (UCP) and the ACP order's reads. */
  db: Queryable;
  /** ACP deliveries build their order with these; without them an ACP delivery fails. */
  acp?: Omit<AcpOrderReads, 'db'> | undefined;
}

export interface PreparedDelivery {
  body: string;
  headers: Record<string, string>;
}

const USER_AGENT = 'CommerceAgentAPI-Webhooks/1';

/** The current secret, and the previous one while its rotation overlap lasts. */
function secretsOf(ring: KeyRing, delivery: ClaimedDelivery, at: Date): string[] {
  if (!delivery.secretCiphertext) throw new Error('the subscription has no signing secret');
  const secrets = [ring.open('webhook_secret', delivery.secretCiphertext)];
  const previousValid = delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > at;
  if (delivery.previousSecretCiphertext && previousValid) {
    secrets.push(ring.open('webhook_secret', delivery.previousSecretCiphertext));
  }
  return secrets;
}

/**
 * ACP's `Merchant-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, keyed by
 * the subscription's whole secret (`whsec_...`, as `X-Webhook-Signature`). One `v1` (the header's
 * pattern allows no more): the current secret's, also during a rotation's overlap.
 */
export function merchantSignature(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

const eventOf = (delivery: ClaimedDelivery): DeliveredEvent => ({
  id: delivery.eventId,
  type: delivery.eventType,
  occurredAt: delivery.occurredAt,
  tenantId: delivery.tenantId,
  data: delivery.payload,
});

/**
 * An `acp` delivery: an order event as ACP's `order_create`/`order_update` with the order as it is
 * now; anything else that reaches the subscription (a `webhook.test`) as our own body. Signed
 * with `Merchant-Signature`; `Request-Id` is the event id (the same on every retry).
 */
async function prepareAcp(deps: PrepareDeps, delivery: ClaimedDelivery, at: Date): Promise<PreparedDelivery> {
  let body: string;
  if (isAcpSourceEvent(delivery.eventType)) {
    if (!deps.acp) throw new Error('ACP deliveries need the order reads; this worker has none');
    const facts = await readAcpOrderFacts({ ...deps.acp, db: deps.db }, delivery.tenantId, delivery.payload);
    body = acpEventBody(delivery.eventType, facts);
  } else {
    body = deliveryBody(eventOf(delivery));
  }
  const [secret] = secretsOf(deps.keyRing, delivery, at);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'merchant-signature': merchantSignature(secret as string, body, at),
      'request-id': delivery.eventId,
      timestamp: at.toISOString(),
    },
  };
}

/**
 * A `ucp` delivery: the body queued (the platform's order entity) as it was given, with Standard
 * Webhooks' `Webhook-Id` and `Webhook-Timestamp`, `UCP-Agent` naming the seller's profile, and an
 * RFC 9421 signature by the seller's key over method, authority, path, `ucp-agent`,
 * `content-digest` and `content-type` (UCP signatures.md, order.md "Order Event Webhook").
 */
async function prepareUcp(deps: PrepareDeps, delivery: ClaimedDelivery, at: Date): Promise<PreparedDelivery> {
  const body = JSON.stringify(delivery.payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(Math.floor(delivery.occurredAt.getTime() / 1000)),
  };
  if (delivery.agentProfileUrl)
    headers['ucp-agent'] = serializeDictionary({ profile: delivery.agentProfileUrl });
  const signer = await sellerRequestSigner(deps, delivery.tenantId);
  return { body, headers: await signer.sign({ method: 'POST', url: delivery.url, headers, body }, at) };
}

/** The bytes and headers of one attempt at `at`, in the delivery's format. */
export async function prepareDelivery(
  deps: PrepareDeps,
  delivery: ClaimedDelivery,
  at: Date,
): Promise<PreparedDelivery> {
  if (delivery.format === 'acp') return prepareAcp(deps, delivery, at);
  if (delivery.format === 'ucp') return prepareUcp(deps, delivery, at);
  const event = eventOf(delivery);
  const body = deliveryBody(event);
  return { body, headers: signDelivery(event, body, secretsOf(deps.keyRing, delivery, at), at) };
}
