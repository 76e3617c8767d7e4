import type { FastifyRequest } from 'fastify';
import { requireCtx } from '../../../../http/auth.js';
import type { Deps } from '../../../../http/deps.js';
import type { Presented } from '../../../../http/operation.js';
import { getSellerProfile, type SellerProfile } from '../../../seller/index.js';
import type { CheckoutSession } from '../../index.js';
import { acpEdge } from '../edge.js';
import { type AcpView, presentSession } from '../presenter.js';
import { verifyAcpRequest } from '../request-signature.js';

export const TAGS = ['ACP'];

/** The edge of every ACP checkout route; cancel answers a closed session 405, as ACP says. */
export const ACP_EDGE = acpEdge();
export const ACP_CANCEL_EDGE = acpEdge({ closedStatus: 405 });

const headerOf = (request: FastifyRequest, name: string) => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

/**
 * The seller the request is for, once the request's signature is verified when the seller
 * requires signed requests (its `acpRequestKeys`): before anything is done.
 */
export async function verifiedSeller(deps: Deps, request: FastifyRequest): Promise<SellerProfile> {
  const seller = await getSellerProfile(deps.db, requireCtx(request).tenantId);
  const signed = {
    method: request.method,
    url: request.url,
    signature: headerOf(request, 'signature'),
    timestamp: headerOf(request, 'timestamp'),
    body: request.rawBody,
  };
  verifyAcpRequest(signed, seller, deps.clock.now());
  return seller;
}

/**
 * What a session answer needs besides the session: the deployment, the merchant, its policy
 * links; the request's signature verified first (`verifiedSeller`).
 */
export async function acpView(deps: Deps, request: FastifyRequest): Promise<AcpView> {
  return {
    publicBaseUrl: deps.config.publicBaseUrl,
    environment: deps.config.appEnv,
    merchantId: requireCtx(request).tenantId,
    seller: await verifiedSeller(deps, request),
  };
}

/** The session as ACP's CheckoutSession, with `status`. */
export const sessionAnswer =
  (status: number, view: AcpView, agentInterventions?: readonly string[]) =>
  (session: CheckoutSession): Presented => ({
    status,
    body: presentSession(session, view, agentInterventions),
  });

export const HOW_TO_CALL =
  'ACP (Agentic Commerce Protocol 2026-04-17) binding: send `API-Version: 2026-04-17` (400 ' +
  'missing_api_version / unsupported_api_version otherwise) and, on POST, an Idempotency-Key (400 ' +
  'idempotency_key_required); errors are ACP’s flat `{ type, code, message, param }`.';
