import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireCtx } from '../../../../http/auth.js';
import type { RequestContext } from '../../../../http/context.js';
import type { Deps } from '../../../../http/deps.js';
import type { Presented } from '../../../../http/operation.js';
import type { CheckoutSession } from '../../index.js';
import { checkoutPresentation, negotiateWith } from '../binding.js';
import { incompatible, type Negotiated, UCP_AGENT_HEADER } from '../negotiation.js';
import { type CheckoutPresentation, presentCheckout } from '../present-checkout.js';
import { CAPABILITY } from '../protocol.js';
import { verifyPlatformRequest } from '../request-signature.js';
import type { ActiveExtensions } from '../to-change.js';
import { sendAsIs } from './edge.js';

/**
 * The platform of the request (UCP-Agent), negotiated with, and the request's signature verified
 * with the platform's keys when it carries one (ucp/request-signature.ts), before anything is done.
 */
export async function negotiatedRequest(deps: Deps, request: FastifyRequest): Promise<Negotiated> {
  const negotiated = await negotiateWith(deps, request.headers[UCP_AGENT_HEADER]);
  const url = `${request.protocol}://${request.host}${request.url}`;
  const received = { method: request.method, url, headers: request.headers, body: request.rawBody ?? '' };
  await verifyPlatformRequest(received, negotiated.signingKeys, deps.clock.now());
  return negotiated;
}

/** A checkout call negotiated with its platform, ready to present its answer. */
export interface CheckoutCall {
  ctx: RequestContext;
  negotiated: Negotiated;
  active: ActiveExtensions;
  presentation: CheckoutPresentation;
  /** The session as this call answers it, with `status`. */
  answer: (status: number) => (session: CheckoutSession) => Presented;
}

/**
 * Negotiates with the platform of the request (its profile, fetched or cached). Without the
 * checkout capability in common, the call is answered here (200, UCP's error response:
 * capabilities_incompatible) and `undefined` returned: nothing is done.
 */
export async function checkoutCall(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<CheckoutCall | undefined> {
  const ctx = requireCtx(request);
  const negotiated = await negotiatedRequest(deps, request);
  const refused = incompatible(negotiated, CAPABILITY.checkout);
  if (refused) {
    await sendAsIs(reply, 200, refused);
    return undefined;
  }
  const presentation = await checkoutPresentation(deps, ctx.tenantId, negotiated);
  return {
    ctx,
    negotiated,
    active: { discount: presentation.discount, fulfillment: presentation.fulfillment },
    presentation,
    answer: (status) => (session) => ({ status, body: presentCheckout(session, presentation) }),
  };
}

/** A read answered directly (no Idempotency-Key to honour). */
export const sendCheckout = (reply: FastifyReply, call: CheckoutCall, session: CheckoutSession) =>
  reply.code(200).send(presentCheckout(session, call.presentation));
