import { LIST_PAGING } from '../../core/agent-guide.js';
import { notFound } from '../../core/errors.js';
import { createdKey, listOfRows, NEWEST_FIRST, pageRequest } from '../../core/paging.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { paymentSessionCompletedExample, paymentSessionCreatedExample } from '../../http/examples.js';
import { type Presented, respond } from '../../http/operation.js';
import { ListEnvelope, listEnvelope } from '../../http/paging.js';
import type { TagTarget } from '../../http/tag-routes.js';
import type { TypedApp } from '../../http/types.js';
import { completeSession, createSession } from './operations.js';
import {
  CompleteSessionBody,
  CreatePaymentBody,
  InvoiceParams,
  PayInvoiceBody,
  PaymentListQuery,
  PaymentSessionSchema,
  SessionParams,
} from './schemas.js';
import {
  getSession,
  isTerminal,
  listSessions,
  type NewSession,
  type PaymentSessionApi,
  type PaymentSessionRow,
  presentSession,
} from './service.js';
import type { SettleOutcome } from './settlement.js';
import { paymentSessionTags } from './tags.js';

const TAGS = ['Payments'];

function sessionActions(s: PaymentSessionApi): ActionSpec[] {
  return [
    action('self', 'GET', `/payments/${s.id}`, 'read'),
    ...(isTerminal(s.status) ? [] : [action('complete', 'POST', `/payments/${s.id}/complete`, 'commerce')]),
    ...(s.orderId ? [action('order', 'GET', `/orders/${s.orderId}`, 'read')] : []),
    ...(s.status === 'success' && !s.reversal && s.refundedCents < s.amountCents
      ? [
          action('refund', 'POST', `/payments/${s.id}/refunds`, 'commerce', {
            reason: 'requested_by_customer',
          }),
        ]
      : []),
    // Only a session paying an invoice is known to have a billing account to list invoices of.
    ...(s.invoiceId ? [action('accountInvoices', 'GET', `/accounts/${s.accountId}/invoices`, 'read')] : []),
  ];
}

const sessionInput = (
  b: { accountId: string; amountCents: number; currency: string; paymentPageSlug?: string; orderId?: string },
  invoiceId: string | null,
): NewSession => ({
  accountId: b.accountId,
  amountCents: b.amountCents,
  currency: b.currency,
  invoiceId,
  orderId: b.orderId ?? null,
  paymentPageSlug: b.paymentPageSlug ?? null,
});

/** The session in its envelope, with `status`. */
const sessionResponse =
  (status: number) =>
  (session: PaymentSessionApi, ctx: RequestContext): Presented => ({
    status,
    body: envelope(ctx, session, sessionActions(session)),
  });

export function registerPaymentRoutes(app: TypedApp, deps: Deps) {
  app.post(
    '/api/v1/payments',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'createPaymentSession',
        summary: 'Create a payment session',
        description:
          'Records the intent to pay `amountCents`; money moves at the payment provider. With `invoiceId` it pays ' +
          'that invoice (unknown: 400 naming `invoiceId`; not open or another currency: 409). ' +
          'With `orderId` it pays that order; open sessions covering the rest are 409 `conflict`. ' +
          'Emits `payment.session_created`. Complete it with POST /payments/{id}/complete, or let the provider ' +
          'report the outcome.',
        tags: TAGS,
        body: CreatePaymentBody,
        response: {
          201: Envelope(PaymentSessionSchema, 'The session, pending.', paymentSessionCreatedExample),
          ...errorResponses(502),
        },
      },
    },
    async (request, reply) => {
      const input = sessionInput(request.body, request.body.invoiceId ?? null);
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => createSession(deps, ctx, input, key),
        sessionResponse(201),
      );
    },
  );

  app.post(
    '/api/v1/invoices/:id/pay',
    {
      config: { public: true, scope: 'commerce', createdAt: [{ collection: '/api/v1/payments' }] },
      schema: {
        operationId: 'payInvoice',
        summary: 'Pay an invoice',
        description:
          'POST /payments with the `invoiceId` of the path: a payment session for the invoice (400 when the ' +
          'billing system does not know it, 409 when not open or in another currency).',
        tags: TAGS,
        params: InvoiceParams,
        body: PayInvoiceBody,
        response: {
          201: Envelope(PaymentSessionSchema, 'The session, pending.', paymentSessionCreatedExample),
          ...errorResponses(502),
        },
      },
    },
    async (request, reply) => {
      const input = sessionInput(request.body, request.params.id);
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => createSession(deps, ctx, input, key),
        sessionResponse(201),
      );
    },
  );

  app.get(
    '/api/v1/payments',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listPaymentSessions',
        summary: 'List payment sessions',
        description: `The payment sessions of the tenant, newest first; filters \`accountId\`, \`status\`, \`tag\`. ${LIST_PAGING.text}`,
        tags: TAGS,
        querystring: PaymentListQuery,
        response: { 200: ListEnvelope(PaymentSessionSchema, 'The sessions.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const where = { tenantId: ctx.tenantId, list: 'payments', keys: deps.keyRing };
      const page = pageRequest(where, request.query, NEWEST_FIRST);
      const rows = await listSessions(deps.db, ctx.tenantId, request.query, page);
      const list = listOfRows(rows, page, createdKey, where, presentSession);
      return listEnvelope(ctx, request, list, [
        action('createPaymentSession', 'POST', '/payments', 'commerce'),
      ]);
    },
  );

  app.get(
    '/api/v1/payments/:id',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getPaymentSession',
        summary: 'Get a payment session',
        description: 'One payment session of this tenant.',
        tags: TAGS,
        params: SessionParams,
        response: {
          200: Envelope(PaymentSessionSchema, 'The session.', paymentSessionCompletedExample),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const row = await getSession(deps.db, ctx.tenantId, request.params.id);
      if (!row) throw notFound('Payment session');
      const session = presentSession(row);
      return envelope(ctx, session, sessionActions(session));
    },
  );

  app.post(
    '/api/v1/payments/:id/complete',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'completePaymentSession',
        summary: 'Complete a payment session',
        description:
          'Force-marks the session `success`: only with external proof of payment (see `proof`). A terminal ' +
          'session is 400 `session_terminal`. A session paying an invoice first settles it in the billing system; ' +
          'if that fails (502 outage, 409 refused) nothing changes, and a retry with the same Idempotency-Key ' +
          'completes it without settling twice. Emits `payment.succeeded`, and `invoice.paid` once the invoice is ' +
          'fully paid.',
        tags: TAGS,
        params: SessionParams,
        body: CompleteSessionBody,
        response: {
          200: Envelope(PaymentSessionSchema, 'The completed session.', paymentSessionCompletedExample),
          ...errorResponses(404, 502),
        },
      },
    },
    async (request, reply) => {
      const input = { sessionId: request.params.id, proof: request.body?.proof };
      return respond<SettleOutcome>(
        deps,
        request,
        reply,
        (ctx, key) => completeSession(deps, ctx, input, key),
        (outcome: SettleOutcome, ctx) => sessionResponse(200)(outcome.session, ctx),
      );
    },
  );
}

/** Tags of payment sessions, in any status (a tag changes no money). */
export const paymentSessionTagTarget = (): TagTarget<PaymentSessionRow> => ({
  resource: 'payments',
  schema: PaymentSessionSchema,
  operations: paymentSessionTags,
  presenter: () => (row, ctx) => sessionResponse(200)(presentSession(row), ctx),
});
