import { requireCtx } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { getCheckout } from '../../index.js';
import { presentSession } from '../presenter.js';
import { AcpHeaders, SessionParams } from '../request-schemas.js';
import { acpErrorResponses } from '../schema-parts.js';
import { AcpSessionSchema } from '../session-schemas.js';
import { ACP_EDGE, acpView, HOW_TO_CALL, TAGS } from './shared.js';

export const getCheckoutSessionRoute = defineRoute({
  method: 'GET',
  path: '/checkout_sessions/:id',
  protocol: ACP_EDGE,
  public: false,
  operationId: 'acpGetCheckoutSession',
  summary: 'ACP: get a checkout session',
  description:
    `${HOW_TO_CALL} The session's authoritative state: the shape every ACP checkout call answers. ` +
    '404 not_found for an unknown id or another merchant’s.',
  tags: TAGS,
  scope: 'read',
  headers: AcpHeaders,
  params: SessionParams,
  responses: { 200: AcpSessionSchema, ...acpErrorResponses(400, 401, 403, 404, 429, 500, 503) },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const view = await acpView(deps, request);
    return presentSession(await getCheckout(deps, ctx, request.params.id), view);
  },
});
