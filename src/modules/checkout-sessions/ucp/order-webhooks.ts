import { systemContext } from '../../../core/context.js';
import type { ServiceDeps, UnitOfWork } from '../../../unit-of-work/index.js';
import { enqueuePlatformDelivery } from '../../webhooks/index.js';
import type { CheckoutSession } from '../model.js';
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
 * In the completion's unit of work: the entity of the order it placed, queued for the platform's
 * webhook URL (the order's row is written at the unit's end, so the entity is made from the
 * session: it has no `label` yet). The order and its webhook commit together or not at all.
 */
export function queueOrderCreated(deps: ServiceDeps) {
  return async (u: UnitOfWork, session: CheckoutSession) => {
    const url = session.platform.webhookUrl;
    if (!url || !session.orderId) return;
    const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
    const body = presentOrder(session, placedOrderFacts(session, session.orderId), {
      base,
      ucp: orderMeta(),
    });
    await enqueuePlatformDelivery(u, {
      url,
      eventType: 'order_created',
      body,
      signing: 'ucp',
      agentProfileUrl: businessProfileUrl(base, u.ctx.tenantId),
    });
  };
}

/**
 * In a unit of work that changed an order a UCP checkout placed (status, payment, refund): the
 * order entity as it now is, queued for the platform's webhook URL (`order_updated`). Other
 * orders: nothing, without a read.
 */
export function queueOrderUpdated(deps: ServiceDeps) {
  return async (u: UnitOfWork, changed: { id: string; checkoutSessionId: string | null }) => {
    if (!changed.checkoutSessionId) return;
    // Read in the unit's transaction: the order as this unit changed it.
    const found = await orderEventOf({ ...deps, db: u.tx }, u.ctx.tenantId, changed.id);
    if (!found) return;
    const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
    await enqueuePlatformDelivery(u, {
      url: found.webhookUrl,
      eventType: 'order_updated',
      body: found.body,
      signing: 'ucp',
      agentProfileUrl: businessProfileUrl(base, u.ctx.tenantId),
    });
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
