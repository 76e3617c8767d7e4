import { notFound } from '../../core/errors.js';
import { requireCtx } from '../../http/auth.js';
import type { RequestContext } from '../../http/context.js';
import type { Deps } from '../../http/deps.js';
import { type ActionSpec, action, Envelope, envelope } from '../../http/envelope.js';
import { errorResponses } from '../../http/errors.js';
import { type Presented, respond } from '../../http/operation.js';
import type { TypedApp } from '../../http/types.js';
import { addPaymentMethod, makeDefaultPaymentMethod } from './operations.js';
import { CreatePaymentMethodBody, PaymentMethodParams, PaymentMethodSchema } from './schemas.js';
import { getPaymentMethod, type PaymentMethodApi } from './service.js';

const TAGS = ['Payment methods'];

const methodResponse =
  (status: number) =>
  (method: PaymentMethodApi, ctx: RequestContext): Presented => ({
    status,
    body: envelope(ctx, method, methodActions(method)),
  });
const BASE = '/api/v1/payment-methods';

function methodActions(method: PaymentMethodApi): ActionSpec[] {
  const path = `/payment-methods/${method.id}`;
  return [
    action('self', 'GET', path, 'read'),
    action('setDefault', 'POST', `${path}/set-default`, 'commerce'),
    action(
      'accountPaymentMethods',
      'GET',
      `/accounts/${encodeURIComponent(method.accountId)}/payment-methods`,
      'read',
    ),
  ];
}

export function registerPaymentMethodRoutes(app: TypedApp, deps: Deps) {
  app.post(
    BASE,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'createPaymentMethod',
        summary: 'Add a payment-method reference',
        description:
          'Stores a local reference to a payment method held by the payment provider (never a card number). The ' +
          'account’s first reference becomes its default (`isDefault: true`); later ones only through the ' +
          '`setDefault` action. Listed by GET /accounts/{accountId}/payment-methods with `source: "local"`.',
        tags: TAGS,
        body: CreatePaymentMethodBody,
        response: { 201: Envelope(PaymentMethodSchema, 'The stored reference.') },
      },
    },
    async (request, reply) =>
      respond(
        deps,
        request,
        reply,
        (ctx, key) => addPaymentMethod(deps, ctx, request.body, key),
        methodResponse(201),
      ),
  );

  app.get(
    `${BASE}/:id`,
    {
      config: { public: true, scope: 'read' },
      schema: {
        operationId: 'getPaymentMethod',
        summary: 'Get a payment-method reference',
        description: 'One local payment-method reference of this tenant.',
        tags: TAGS,
        params: PaymentMethodParams,
        response: { 200: Envelope(PaymentMethodSchema, 'The reference.'), ...errorResponses(404) },
      },
    },
    async (request) => {
      const ctx = requireCtx(request);
      const method = await getPaymentMethod(deps.db, ctx.tenantId, request.params.id);
      if (!method) throw notFound('Payment method');
      return envelope(ctx, method, methodActions(method));
    },
  );

  app.post(
    `${BASE}/:id/set-default`,
    {
      config: { public: true, scope: 'commerce' },
      schema: {
        operationId: 'setDefaultPaymentMethod',
        summary: 'Make a payment-method reference the default',
        description:
          'Makes this reference its account’s only local default, also under concurrent calls (the last one ' +
          'wins). On the current default it changes nothing (200). No body.',
        tags: TAGS,
        params: PaymentMethodParams,
        response: {
          200: Envelope(PaymentMethodSchema, 'The reference, now the default.'),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const input = { methodId: request.params.id };
      return respond(
        deps,
        request,
        reply,
        (ctx, key) => makeDefaultPaymentMethod(deps, ctx, input, key),
        methodResponse(200),
      );
    },
  );
}
