import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, notFound, validationFailed } from '../../core/errors.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { paymentSessionCompletedExample, paymentSessionCreatedExample } from '../../http/examples.js';
import { runMutation } from '../../http/mutation.js';
import type { TypedApp } from '../../http/types.js';
import {
  CreatePaymentBody,
  InvoiceParams,
  PayInvoiceBody,
  PaymentListQuery,
  PaymentSessionSchema,
  SessionParams,
} from './schemas.js';
import {
  getSession,
  insertSession,
  isTerminal,
  listSessions,
  type NewSession,
  type PaymentSessionApi,
  presentSession,
  resolveSession,
  settleSessionInvoice,
} from './service.js';

const TAGS = ['Payments'];

function sessionActions(s: PaymentSessionApi): ActionSpec[] {
  return [
    action('self', 'GET', `/payments/${s.id}`, 'read'),
    ...(isTerminal(s.status) ? [] : [action('complete', 'POST', `/payments/${s.id}/complete`, 'commerce')]),
    action('accountInvoices', 'GET', `/accounts/${s.accountId}/invoices`, 'read'),
  ];
}

/** An invoice a session may pay: known to the billing system (else 400), open, same currency (else 409). */
async function checkInvoice(deps: Deps, ctx: RequestContext, invoiceId: string, currency: string) {
  const adapter = await deps.billing.forTenant(deps.db, ctx.tenantId);
  const result = adapter ? await adapter.getInvoice(invoiceId) : undefined;
  if (!result?.ok) {
    if (result && result.failure.kind !== 'not_found') throw new AppError('conflict', result.failure.message);
    throw validationFailed('invoiceId', 'exists', 'invoiceId is not an invoice the billing system knows');
  }
  const invoice = result.value;
  if (invoice.status !== 'open')
    throw new AppError('conflict', `Invoice ${invoiceId} is ${invoice.status}, not open`);
  if (invoice.currency !== currency) {
    throw new AppError(
      'conflict',
      `Invoice ${invoiceId} is in ${invoice.currency}, the session in ${currency}`,
    );
  }
}

const sessionInput = (
  b: { accountId: string; amountCents: number; currency: string; paymentPageSlug?: string },
  invoiceId: string | null,
): NewSession => ({
  accountId: b.accountId,
  amountCents: b.amountCents,
  currency: b.currency,
  invoiceId,
  paymentPageSlug: b.paymentPageSlug ?? null,
});

async function createSession(deps: Deps, request: FastifyRequest, reply: FastifyReply, input: NewSession) {
  const ctx = requireCtx(request);
  if (input.invoiceId) await checkInvoice(deps, ctx, input.invoiceId, input.currency);
  return runMutation(deps, request, reply, async (m) => {
    const session = presentSession(await insertSession(m.tx, m.ctx.tenantId, input, m.now));
    await m.audit({ action: 'payment.create', resourceType: 'payment_session', resourceId: session.id });
    await m.emit('payment.session_created', session);
    return { status: 201, body: envelope(m.ctx, session, sessionActions(session)) };
  });
}

export function registerPaymentRoutes(app: TypedApp, deps: Deps) {
  app.post(
    '/api/v1/payments',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'createPaymentSession',
        summary: 'Create a payment session',
        description:
          'Records the intent to pay `amountCents` (money moves at the payment provider). With `invoiceId`, the ' +
          'session pays that invoice: unknown to the billing system -> 400 naming invoiceId; not open or another ' +
          'currency -> 409. Emits `payment.session_created`. Complete it with POST /payments/{id}/complete, or ' +
          'let the provider report the outcome.',
        tags: TAGS,
        body: CreatePaymentBody,
        response: {
          201: Envelope(PaymentSessionSchema, 'The session, pending.', paymentSessionCreatedExample),
          ...errorResponses(502),
        },
      },
    },
    async (request, reply) =>
      createSession(deps, request, reply, sessionInput(request.body, request.body.invoiceId ?? null)),
  );

  app.post(
    '/api/v1/invoices/:id/pay',
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'payInvoice',
        summary: 'Pay an invoice',
        description:
          'Same as POST /payments with `invoiceId` taken from the path: creates a payment session for the invoice ' +
          '(400 when the billing system does not know it, 409 when it is not open or in another currency).',
        tags: TAGS,
        params: InvoiceParams,
        body: PayInvoiceBody,
        response: {
          201: Envelope(PaymentSessionSchema, 'The session, pending.', paymentSessionCreatedExample),
          ...errorResponses(502),
        },
      },
    },
    async (request, reply) =>
      createSession(deps, request, reply, sessionInput(request.body, request.params.id)),
  );

  app.get(
    '/api/v1/payments',
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'listPaymentSessions',
        summary: 'List payment sessions',
        description:
          'All payment sessions of the tenant, newest first (no pagination); filters `accountId`, `status`.',
        tags: TAGS,
        querystring: PaymentListQuery,
        response: { 200: Envelope(Type.Array(PaymentSessionSchema), 'The sessions.') },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const rows = await listSessions(deps.db, ctx.tenantId, request.query);
      return envelope(ctx, rows.map(presentSession), [
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
        description: 'One payment session; 404 when not a session of this tenant.',
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
          'Force-marks the session `success`: only with external proof of payment. A terminal session is 400 ' +
          '(`invalid_state`). A session paying an invoice first settles the invoice in the billing system for the ' +
          'session amount: if that fails (502 outage, 409 refused) the session stays as it was, and a retry with ' +
          'the same Idempotency-Key completes it without settling twice. Emits `payment.succeeded`, and ' +
          '`invoice.paid` when the invoice is now fully paid.',
        tags: TAGS,
        params: SessionParams,
        response: {
          200: Envelope(PaymentSessionSchema, 'The completed session.', paymentSessionCompletedExample),
          ...errorResponses(404, 502),
        },
      },
    },
    async (request, reply) => {
      const ctx = requireCtx(request);
      const alreadyTerminal = () =>
        new AppError('invalid_state', 'The payment session is already in a terminal status', [
          { field: 'status', rule: 'terminal', message: 'success, failed and cancelled are terminal' },
        ]);
      const row = await getSession(deps.db, ctx.tenantId, request.params.id);
      if (!row) throw notFound('Payment session');
      if (isTerminal(row.status)) throw alreadyTerminal();
      const settled = await settleSessionInvoice(await deps.billing.forTenant(deps.db, ctx.tenantId), row);
      return runMutation(deps, request, reply, async (m) => {
        const { changed, session } = await resolveSession(m, row.id, 'success', 'complete', settled);
        if (!changed) throw alreadyTerminal(); // a provider event or another complete won the race
        await m.audit({
          action: 'payment.complete',
          resourceType: 'payment_session',
          resourceId: session.id,
          details: { before: { status: row.status }, after: { status: session.status } },
        });
        return { status: 200, body: envelope(m.ctx, session, sessionActions(session)) };
      });
    },
  );
}
