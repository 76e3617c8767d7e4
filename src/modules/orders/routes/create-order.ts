import type { RequestContext } from '../../../http/context.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, withWarnings } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { respond } from '../../../http/operation.js';
import { type CreatedOrder, createOrder as create } from '../create.js';
import { CreatedOrderSchema, CreateOrderBody } from '../schemas.js';
import { createdOrderResponse, TAGS } from './order-responses.js';

/** A create recorded from the real route (ids replaced by fixed ones). */
export const orderCreatedExample = {
  data: {
    id: '0190b000-0000-7000-8000-000000000008',
    tenantId: '0190b000-0000-7000-8000-000000000001',
    orderNumber: 'ORD-1000',
    status: 'pending',
    items: [
      {
        productId: '0190b000-0000-7000-8000-000000000003',
        productName: 'Onboarding workshop',
        quantity: 2,
        priceCents: 2500,
        totalCents: 5000,
        priced: 'engine',
      },
    ],
    totalCents: 5000,
    currency: 'USD',
    contactId: null,
    organizationId: '0190b000-0000-7000-8000-000000000005',
    journeyId: null,
    cartId: '0190b000-0000-7000-8000-000000000006',
    customerContext: {
      locale: null,
      partner: null,
      segment: null,
    },
    promoCode: null,
    discountCents: 0,
    billingAccountId: 'ba_9f2k4m6p8r0t2v4x6z8b',
    invoiceId: 'in_3h5j7l9n1q3s5u7w9y1a',
    checkoutSessionId: null,
    shipping: null,
    paymentStatus: 'unpaid',
    paidCents: 0,
    refundedCents: 0,
    tags: {},
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
    rulesApplied: {
      policyEvaluation: {
        allowed: true,
        evaluations: [],
      },
      priceRules: [],
      offers: [],
      promotion: null,
      quotes: [],
      hints: [],
    },
  },
  nextActions: [
    {
      rel: 'self',
      method: 'GET',
      href: '/api/v1/orders/0190b000-0000-7000-8000-000000000008',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'update',
      method: 'PATCH',
      href: '/api/v1/orders/0190b000-0000-7000-8000-000000000008',
      requiredScope: 'commerce',
      allowed: true,
    },
    {
      rel: 'payInvoice',
      method: 'POST',
      href: '/api/v1/invoices/in_3h5j7l9n1q3s5u7w9y1a/pay',
      requiredScope: 'commerce',
      allowed: true,
    },
    {
      rel: 'createPaymentSession',
      method: 'POST',
      href: '/api/v1/payments',
      requiredScope: 'commerce',
      allowed: true,
    },
  ],
};

export const createOrder = defineRoute({
  method: 'POST',
  path: '/orders',
  operationId: 'createOrder',
  summary: 'Create an order',
  description:
    'Creates an order from `items` or an active cart (`cartId`: it becomes `checked_out` atomically and ' +
    'decides lines, context and currency: 400 rule `cart` if sent beside it). ' +
    'Unknown or inactive products: 400 naming the line. Priced with `customerContext`; `order_create` ' +
    'policies may block it (403 `policy_blocked`); passthrough charges are quoted live (502 ' +
    '`quote_unavailable`). ' +
    'Starts `pending` with an owner, else `draft`. With a billing ' +
    'account (organization `externalId` or `billingAccountId`), one-time lines are invoiced at once ' +
    '(`invoiceId`, pay action); a billing outage is 502 with nothing written. Send an Idempotency-Key to ' +
    'retry safely.',
  tags: TAGS,
  scope: 'commerce',
  body: CreateOrderBody,
  responses: {
    201: Envelope(CreatedOrderSchema, 'The order, with what decided it.', orderCreatedExample),
    ...errorResponses(502),
  },
  handler: async (request, reply, deps) =>
    respond(
      deps,
      request,
      reply,
      (ctx, key) => create(deps, ctx, request.body, key),
      (created: CreatedOrder, ctx: RequestContext) =>
        withWarnings(createdOrderResponse(created, ctx), created.warnings),
    ),
});
