import { requireCtx } from '../../../http/auth.js';
import { defineRoute } from '../../../http/declared-route.js';
import { Envelope, envelope, next } from '../../../http/envelope.js';
import { errorResponses } from '../../../http/errors.js';
import { getCheckout } from '../operations.js';
import { CheckoutSessionParams, CheckoutSessionSchema } from '../schemas.js';

const ID = '0190b000-0000-7000-8000-00000000000c';

export const checkoutSessionExample = {
  data: {
    id: ID,
    protocol: 'acp',
    status: 'completed',
    currency: 'USD',
    items: [{ productId: '0190b000-0000-7000-8000-000000000003', quantity: 1 }],
    lines: [
      {
        id: 'li_0190b000-0000-7000-8000-000000000003',
        productId: '0190b000-0000-7000-8000-000000000003',
        name: 'Onboarding workshop',
        description: null,
        quantity: 1,
        unitAmount: 2500,
        baseAmount: 2500,
        discount: 0,
        subtotal: 2500,
        tax: 0,
        total: 2500,
        requiresShipping: false,
      },
    ],
    buyer: { email: 'ada@example.com' },
    address: null,
    fulfillmentOptions: [
      {
        id: 'digital',
        type: 'digital',
        title: 'Digital delivery',
        description: 'Delivered electronically after payment',
        carrier: null,
        earliestDeliveryTime: null,
        latestDeliveryTime: null,
        amount: 0,
      },
    ],
    selectedFulfillmentOptionId: 'digital',
    discountCodes: [],
    appliedDiscounts: [],
    rejectedDiscounts: [],
    totals: {
      itemsBase: 2500,
      itemsDiscount: 0,
      subtotal: 2500,
      discount: 0,
      fulfillment: 0,
      tax: 0,
      total: 2500,
    },
    messages: [],
    orderId: '0190b000-0000-7000-8000-000000000008',
    paymentSessionId: '0190b000-0000-7000-8000-000000000009',
    continueUrl: null,
    platform: { webhookUrl: null, profileUrl: null },
    expiresAt: '2026-03-01T16:00:00.000Z',
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:01:00.000Z',
  },
  nextActions: [
    {
      rel: 'order',
      method: 'GET',
      href: '/api/v1/orders/0190b000-0000-7000-8000-000000000008',
      requiredScope: 'read',
      allowed: true,
    },
  ],
};

export const getCheckoutSessionRoute = defineRoute({
  method: 'GET',
  path: '/checkout-sessions/:id',
  operationId: 'getCheckoutSession',
  summary: 'Get an agentic checkout session',
  description:
    "An ACP or UCP checkout session, the merchant's view: lines, totals, messages, status and, once completed, " +
    'its order (`orderId`). 404 for an unknown id.',
  tags: ['Checkout sessions'],
  scope: 'read',
  params: CheckoutSessionParams,
  responses: {
    200: Envelope(CheckoutSessionSchema, 'The checkout session.', checkoutSessionExample),
    ...errorResponses(404),
  },
  handler: async (request, _reply, deps) => {
    const ctx = requireCtx(request);
    const session = await getCheckout(deps, ctx, request.params.id);
    const actions = session.orderId ? [next('order', 'getOrder', { id: session.orderId })] : [];
    return envelope(ctx, session, actions);
  },
});
