import { requireCtx } from '../../../../http/auth.js';
import { defineRoute } from '../../../../http/declared-route.js';
import { respond } from '../../../../http/operation.js';
import { type DelegatedToken, delegatePayment } from '../../index.js';
import { DelegatePaymentRequest, DelegatePaymentResponse } from '../delegate-schemas.js';
import { delegateInput, presentToken } from '../delegation.js';
import { acpEdge } from '../edge.js';
import { AcpHeaders } from '../request-schemas.js';
import { ACP_WRITE_ERRORS, acpErrorResponses } from '../schema-parts.js';
import { TAGS, verifiedSeller } from './shared.js';

export const delegatePaymentRoute = defineRoute({
  method: 'POST',
  path: '/agentic_commerce/delegate_payment',
  protocol: acpEdge({ delegate: true }),
  public: false,
  operationId: 'acpDelegatePayment',
  summary: 'ACP: delegate a card for one checkout session',
  description:
    'ACP delegate_payment (send `API-Version: 2026-04-17` and an Idempotency-Key). Hands over a card ' +
    'once and answers 201 with a token `id` (`vt_...`), shown only here: it pays the one session ' +
    '`allowance.checkout_session_id` names, once, at most `allowance.max_amount`, until ' +
    '`allowance.expires_at`; `allowance.merchant_id` is the `merchant_id` of the session’s ' +
    '`acp_delegated_card` handler. Use it as `payment_data.instrument.credential.token` on complete. ' +
    'The card number and CVC are never stored or echoed. 400 invalid_card (param names the field).',
  tags: TAGS,
  scope: 'commerce',
  headers: AcpHeaders,
  body: DelegatePaymentRequest,
  responses: { 201: DelegatePaymentResponse, ...acpErrorResponses(...ACP_WRITE_ERRORS) },
  handler: async (request, reply, deps) => {
    await verifiedSeller(deps, request);
    const input = delegateInput(request.body, requireCtx(request).tenantId);
    const key = request.headers['idempotency-key'];
    return respond<DelegatedToken>(
      deps,
      request,
      reply,
      (ctx, opKey) => delegatePayment(deps, ctx, input, opKey),
      (token) => ({ status: 201, body: presentToken(token, key) }),
    );
  },
});
