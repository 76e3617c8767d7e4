/**
 * Example responses of the typical flow (SPEC.md section 1), recorded from the real routes (ids
 * replaced by fixed ones), for the OpenAPI document: routes pass them to `Envelope(...)`, and
 * test/openapi-examples.test.ts checks each one against its response schema.
 */

export const manifestExample = {
  data: {
    service: {
      name: 'Commerce Agent API',
      version: '0.1.0',
      apiVersion: 'v1',
    },
    environment: 'sandbox',
    tenant: {
      id: '0190b000-0000-7000-8000-000000000001',
      name: 'Acme Shop',
    },
    key: {
      id: '0190b000-0000-7000-8000-000000000002',
      scopes: ['read', 'commerce'],
      rateTier: 'unlimited',
    },
    capabilities: {
      eventTypes: [
        'account.created',
        'account.updated',
        'order.created',
        'order.updated',
        'subscription.created',
        'subscription.changed',
        'subscription.cancelled',
        'subscription.renewed',
        'payment.session_created',
        'payment.succeeded',
        'payment.failed',
        'invoice.created',
        'invoice.paid',
        'invoice.failed',
        'webhook.test',
      ],
      scopes: ['read', 'commerce', 'admin'],
      rateLimitTiers: {
        standard: 60,
        premium: 300,
        unlimited: 10000,
      },
      billing: { adapter: 'builtin', capabilities: ['refunds', 'credits', 'passthroughQuotes'] },
    },
    links: {
      openapi: '/api/v1/openapi.json',
      capabilities: '/api/v1/capabilities',
    },
  },
  nextActions: [
    {
      rel: 'manifest',
      method: 'GET',
      href: '/api/v1/manifest',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'capabilities',
      method: 'GET',
      href: '/api/v1/capabilities',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'openapi',
      method: 'GET',
      href: '/api/v1/openapi.json',
      requiredScope: null,
      allowed: true,
    },
  ],
};

export const catalogExample = {
  data: [
    {
      id: '0190b000-0000-7000-8000-000000000003',
      name: 'Onboarding workshop',
      description: null,
      type: 'one_time',
      family: null,
      rank: null,
      billingInterval: null,
      currency: 'USD',
      active: true,
      entitlements: {},
      charges: [
        {
          id: '0190b000-0000-7000-8000-000000000004',
          name: 'Seat',
          kind: 'modeled',
          chargeModel: 'per_unit',
          tiers: [
            {
              upTo: null,
              unitPriceCents: 2500,
              flatPriceCents: 0,
            },
          ],
        },
      ],
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T10:00:00.000Z',
    },
  ],
  nextActions: [
    {
      rel: 'resolvePrice',
      method: 'GET',
      href: '/api/v1/pricing/resolve?productId=0190b000-0000-7000-8000-000000000003',
      requiredScope: 'read',
      allowed: true,
    },
    {
      rel: 'createCart',
      method: 'POST',
      href: '/api/v1/carts',
      requiredScope: 'commerce',
      allowed: true,
    },
  ],
};

const cartActions = [
  {
    rel: 'self',
    method: 'GET',
    href: '/api/v1/carts/0190b000-0000-7000-8000-000000000006',
    requiredScope: 'read',
    allowed: true,
  },
  {
    rel: 'addItem',
    method: 'POST',
    href: '/api/v1/carts/0190b000-0000-7000-8000-000000000006/items',
    requiredScope: 'commerce',
    allowed: true,
  },
  {
    rel: 'applyPromo',
    method: 'POST',
    href: '/api/v1/carts/0190b000-0000-7000-8000-000000000006/promo',
    requiredScope: 'commerce',
    allowed: true,
  },
  {
    rel: 'checkout',
    method: 'POST',
    href: '/api/v1/orders',
    requiredScope: 'commerce',
    allowed: true,
  },
];

export const cartCreatedExample = {
  data: {
    id: '0190b000-0000-7000-8000-000000000006',
    tenantId: '0190b000-0000-7000-8000-000000000001',
    sessionId: 'conversation-42',
    status: 'active',
    currency: 'USD',
    customerContext: {
      segment: null,
      locale: null,
      partner: null,
    },
    contactId: null,
    organizationId: null,
    items: [],
    subtotalCents: 0,
    discountCents: 0,
    totalCents: 0,
    promo: null,
    requiresQuote: false,
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
  },
  nextActions: cartActions,
};

export const cartItemAddedExample = {
  data: {
    ...cartCreatedExample.data,
    items: [
      {
        id: '0190b000-0000-7000-8000-000000000007',
        productId: '0190b000-0000-7000-8000-000000000003',
        productName: 'Onboarding workshop',
        productType: 'one_time',
        quantity: 2,
        unitPriceCents: 2500,
        totalCents: 5000,
        listCents: 5000,
        charges: [
          {
            chargeId: '0190b000-0000-7000-8000-000000000004',
            name: 'Seat',
            kind: 'modeled',
            chargeModel: 'per_unit',
            amountCents: 5000,
          },
        ],
        appliedOffers: [],
        appliedPriceRules: [],
        requiresQuote: false,
      },
    ],
    subtotalCents: 5000,
    totalCents: 5000,
  },
  nextActions: cartActions,
};

/** Derived from the recorded ones: the same resources read back or changed as the body examples say. */
