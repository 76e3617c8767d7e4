import { LIST_PAGING } from '../../core/agent-guide.js';
import { notFound } from '../../core/errors.js';
import { createdKey, listOfRows, NEWEST_FIRST, pageRequest } from '../../core/paging.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import type { Presented } from '../../http/operation.js';
import { respond } from '../../http/operation.js';
import { ListEnvelope, listEnvelope } from '../../http/paging.js';
import type { TypedApp } from '../../http/types.js';
import {
  CreateRefundBody,
  RefundListQuery,
  RefundParams,
  RefundSchema,
  refundExample,
} from './refund-schemas.js';
import { getRefund, listRefunds, presentRefund, type RefundApi } from './refund-store.js';
import { createRefund } from './refunds.js';
import { SessionParams } from './schemas.js';

const TAGS = ['Payments'];

const refundActions = (r: RefundApi): ActionSpec[] => [
  action('self', 'GET', `/refunds/${r.id}`, 'read'),
  action('payment', 'GET', `/payments/${r.paymentSessionId}`, 'read'),
];

const refundResponse = (refund: RefundApi, ctx: RequestContext): Presented => ({
  status: 201,
  body: envelope(ctx, refund, refundActions(refund)),
});

export function registerRefundRoutes(app: TypedApp, deps: Deps) {
  app.post(
    '/api/v1/payments/:id/refunds',
    {
      config: { public: true, scope: 'commerce', createdAt: [{ collection: '/api/v1/refunds' }] },
      schema: {
        operationId: 'createRefund',
        summary: 'Refund a payment',
        description:
          'Gives back `amountCents` of a `success` session (its `refundedCents` grows), recorded in the billing ' +
          'system against the invoice it paid (which stays paid). 409 `payment_not_refundable` (not successful) ' +
          'or `refund_exceeds_remaining`; 409 `conflict` with `Retry-After` while the payment is being reversed; 501 `capability_unavailable` when the billing system has no refunds. ' +
          'Emits `refund.created` and `refund.succeeded`.',
        tags: TAGS,
        params: SessionParams,
        body: CreateRefundBody,
        response: {
          201: Envelope(RefundSchema, 'The refund.', refundExample),
          ...errorResponses(404, 409, 501, 502),
        },
      },
    },
    async (request, reply) => {
      const input = { sessionId: request.params.id, ...request.body };
      return respond(deps, request, reply, (ctx, key) => createRefund(deps, ctx, input, key), refundResponse);
    },
  );

  app.get(
    '/api/v1/refunds',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listRefunds',
        summary: 'List refunds',
        description: `Refunds of the tenant, newest first; filters \`paymentId\`, \`accountId\`, \`status\`. ${LIST_PAGING.text}`,
        tags: TAGS,
        querystring: RefundListQuery,
        response: { 200: ListEnvelope(RefundSchema, 'The refunds.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const where = { tenantId: ctx.tenantId, list: 'refunds', keys: deps.keyRing };
      const page = pageRequest(where, request.query, NEWEST_FIRST);
      const rows = await listRefunds(deps.db, ctx.tenantId, request.query, page);
      const list = listOfRows(rows, page, createdKey, where, presentRefund);
      return listEnvelope(ctx, request, list, []);
    },
  );

  app.get(
    '/api/v1/refunds/:id',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getRefund',
        summary: 'Get a refund',
        description: 'One refund of this tenant, with its status.',
        tags: TAGS,
        params: RefundParams,
        response: {
          200: Envelope(RefundSchema, 'The refund.', refundExample),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const row = await getRefund(deps.db, ctx.tenantId, request.params.id);
      if (!row) throw notFound('Refund');
      const refund = presentRefund(row);
      return envelope(ctx, refund, refundActions(refund));
    },
  );
}
