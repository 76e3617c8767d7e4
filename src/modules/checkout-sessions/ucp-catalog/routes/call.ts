import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireCtx } from '../../../../http/auth.js';
import type { RequestContext } from '../../../../http/context.js';
import type { Deps } from '../../../../http/deps.js';
import { getSellerProfile } from '../../../seller/index.js';
import { linksOf } from '../../ucp/binding.js';
import { capabilitiesFor, incompatible } from '../../ucp/negotiation.js';
import type { CapabilityName } from '../../ucp/protocol.js';
import { negotiatedRequest } from '../../ucp/routes/call.js';
import { sendAsIs } from '../../ucp/routes/edge.js';
import type { CatalogAnswerContext } from '../answers.js';

/** A catalog call negotiated with its platform: the tenant, and what its answers share. */
export interface CatalogCall extends CatalogAnswerContext {
  ctx: RequestContext;
}

/**
 * Negotiates with the platform of the request (UCP-Agent: its profile, fetched or cached; a
 * signature verified with its keys when the request carries one). Without `capability` in common
 * the call is answered here (200, `capabilities_incompatible`) and `undefined` returned.
 */
export async function catalogCall(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  capability: CapabilityName,
): Promise<CatalogCall | undefined> {
  const ctx = requireCtx(request);
  const negotiated = await negotiatedRequest(deps, request);
  const refused = incompatible(negotiated, capability);
  if (refused) {
    await sendAsIs(reply, 200, refused);
    return undefined;
  }
  const seller = await getSellerProfile(deps.db, ctx.tenantId);
  return {
    ctx,
    ucp: {
      version: negotiated.version,
      status: 'success',
      capabilities: capabilitiesFor(negotiated, capability),
    },
    seller: { name: seller.displayName, links: linksOf(seller) },
  };
}

/** The request's Accept-Language (`context.language` wins over it, catalog/index.md). */
export const acceptLanguageOf = (request: FastifyRequest) => {
  const header = request.headers['accept-language'];
  return Array.isArray(header) ? header.join(', ') : header;
};

export const CATALOG_NEGOTIATION =
  'Every call names the platform profile in `UCP-Agent: profile="<https url>"`; it is fetched (cached by its ' +
  'Cache-Control) and must declare version 2026-04-08: 400 `invalid_profile_url`, 424 `profile_unreachable`, ' +
  '422 `profile_malformed` / `version_unsupported`. ';
