import { type OperationContext, systemContext } from '../../../core/context.js';
import type { Tx } from '../../../db/client.js';
import {
  mintedKey,
  type OperationKey,
  runUnitOfWork,
  type ServiceDeps,
} from '../../../unit-of-work/index.js';
import { enqueuePlatformDelivery } from '../../webhooks/index.js';
import type { CheckoutSession } from '../index.js';
import { ucpOrder } from './placed-orders.js';
import { placedOrderFacts, presentOrder, type UcpOrder } from './present-order.js';
import { BUSINESS_CAPABILITIES, CAPABILITY, UCP_VERSION } from './protocol.js';

// The order webhook (order.md, "Order Event Webhook"): the full order entity, POSTed to the
// webhook URL the platform's profile gave when the checkout was opened, signed with the seller's
// key (RFC 9421, Content-Digest) by the webhook delivery machinery, with its retries.

/** Our public profile for a tenant: what the webhook's `UCP-Agent` names, so the platform finds our keys. */
export const businessProfileUrl = (base: string, tenantId: string) =>
  `${base}/ucp/t/${tenantId}/.well-known/ucp`;

const orderMeta = () => ({
  version: UCP_VERSION,
  status: 'success' as const,
  capabilities: { [CAPABILITY.order]: [{ version: BUSINESS_CAPABILITIES[CAPABILITY.order].version }] },
});

/**
 * Queues the order entity of the order a completion is placing for its platform, in the
 * completion's transaction (the order's row is written at its end, so the entity is made from the
 * session: it has no `label` yet).
 */
async function queueOrderCreated(deps: ServiceDeps, tx: Tx, ctx: OperationContext, session: CheckoutSession) {
  const url = session.platform.webhookUrl;
  if (!url || !session.orderId) return;
  const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
  const body = presentOrder(session, placedOrderFacts(session, session.orderId), { base, ucp: orderMeta() });
  // A unit of its own inside the caller's transaction (a savepoint): it commits with the order.
  await runUnitOfWork({ ...deps, db: tx }, ctx, mintedKey(), (u) =>
    enqueuePlatformDelivery(u, {
      url,
      eventType: 'order_created',
      body,
      signing: 'ucp',
      agentProfileUrl: businessProfileUrl(base, ctx.tenantId),
    }),
  );
}

/**
 * The key of a completion, with the order webhook added to its unit of work: the order is placed
 * and its `order_created` event queued for the platform in one transaction, or neither happens.
 * A completion that places no order (declined, escalated) queues nothing.
 */
export function withOrderWebhook(
  deps: ServiceDeps,
  ctx: OperationContext,
  key: OperationKey<CheckoutSession>,
): OperationKey<CheckoutSession> {
  return {
    id: key.id,
    hooks: {
      ...key.hooks,
      beforeCommit: async (session, tx) => {
        if (tx && session.status === 'completed') await queueOrderCreated(deps, tx, ctx, session);
        await key.hooks?.beforeCommit?.(session, tx);
      },
    },
  };
}

/**
 * The order entity an order webhook carries, for an order a UCP checkout of `tenantId` placed (its
 * platform's webhook URL with it), or undefined for any other order. For pushing later changes of
 * the order (status, refunds) from where they happen: not wired yet, see docs/agentic-commerce.md.
 */
export async function orderEventOf(
  deps: ServiceDeps,
  tenantId: string,
  orderId: string,
): Promise<{ webhookUrl: string; body: UcpOrder } | undefined> {
  const found = await ucpOrder(deps, systemContext(tenantId, `ucp-order-${orderId}`), orderId);
  const webhookUrl = found?.session.platform.webhookUrl;
  if (!found || !webhookUrl) return undefined;
  const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
  return { webhookUrl, body: presentOrder(found.session, found.order, { base, ucp: orderMeta() }) };
}
