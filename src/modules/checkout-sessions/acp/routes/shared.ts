import type { RequestContext } from '../../../../http/context.js';
import type { Deps } from '../../../../http/deps.js';
import type { Presented } from '../../../../http/operation.js';
import { getSellerProfile } from '../../../seller/index.js';
import type { CheckoutSession } from '../../index.js';
import { acpEdge } from '../edge.js';
import { type AcpView, presentSession } from '../presenter.js';

export const TAGS = ['ACP'];

/** The edge of every ACP checkout route; cancel answers a closed session 405, as ACP says. */
export const ACP_EDGE = acpEdge();
export const ACP_CANCEL_EDGE = acpEdge({ closedStatus: 405 });

/** What a session answer needs besides the session: the deployment, the merchant, its policy links. */
export async function acpView(deps: Deps, ctx: RequestContext): Promise<AcpView> {
  return {
    publicBaseUrl: deps.config.publicBaseUrl,
    environment: deps.config.appEnv,
    merchantId: ctx.tenantId,
    seller: await getSellerProfile(deps.db, ctx.tenantId),
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
